--model-path
/nonexistent/model
