--
foo
bar
