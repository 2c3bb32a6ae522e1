"""Pulumi ComponentResources, one module per component, grouped by cloud (aws, gcp, azure)."""
