"""For type checkers: the stack cases import the corpus cases' shared tags (../cases/_tags.py),
which the test puts on sys.path before it runs them."""

TAGS: dict[str, str]
