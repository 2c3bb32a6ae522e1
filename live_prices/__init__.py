"""Live prices: ``gpufleet catalog refresh`` rebuilds the offer catalog from the clouds' own
price and capacity APIs, and ``gpufleet catalog diff`` shows what moved between two catalogs.

One module per cloud reads its APIs through the cloud's SDK (``aws_prices``: the Price List and
EC2 through boto3; ``gcp_prices``: Compute Engine machine and accelerator types and the Cloud
Billing Catalog; ``azure_prices``: the public Retail Prices API and Compute resource SKUs) and
returns offers in the catalog's columns (``price_source``). ``refresh`` checks them
(``refresh_checks``: positive, finite, spot at most on-demand, nothing moved past a factor
without ``--accept-moves``) and writes the new catalog all or nothing; ``catalog_diff`` compares
two catalogs. No cloud SDK is imported until a refresh runs.
"""
