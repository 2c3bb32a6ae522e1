"""Planning without Pulumi: workload spec models and loader, the GPU vocabulary, the offer catalog
(loader and offline builder), the VRAM estimator, pricing assumptions and the cost optimizer.

Nothing here imports pulumi or a cloud SDK, so ``gpufleet plan`` starts fast.
"""
