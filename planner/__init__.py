"""Planning without Pulumi: workload spec models (``spec``) and loader (``spec_loader``,
through ``gpufleet.yaml_input``), managed services (``managed_services``), what each component
can realize (``capabilities``: placements, pricing models, scalings), environment profiles,
the GPU vocabulary (``gpus``) and GCP's machine tables (``gcp_machines``), the offer catalog
(``catalog``; built offline by ``catalog_build``), the VRAM estimator (``vram``) and GPU needs
(``gpu_need``), pricing assumptions (``pricing``), cluster networking (``interconnect``), and
the optimizer: its search (``optimizer``), what one offer costs (``offer_pricing``), what
narrows the offers (``placement_criteria``), why a workload lands where it does
(``explanation``), and the result (``plan``).

Nothing here imports pulumi or a cloud SDK, so ``gpufleet plan`` starts fast.
"""
