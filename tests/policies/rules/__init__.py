"""One test module per rule of the pack, named after it."""
