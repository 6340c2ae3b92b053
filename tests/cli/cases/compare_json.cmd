compare
--json
