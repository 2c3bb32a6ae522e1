"""The dev environment's cost tags, which the corpus cases carry unless they are the evasion."""

TAGS = {
    "project": "acme-ml",
    "owner": "ml@acme.example",
    "cost-center": "cc-1",
    "environment": "dev",
}
