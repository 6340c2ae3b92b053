--page-size
abc
