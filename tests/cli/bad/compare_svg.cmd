compare
--svg
x.svg
