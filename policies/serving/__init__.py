"""How the pack is served to the engine, apart from the rules it serves.

``analyzer_servicer`` is the Analyzer servicer (the SDK's, reading each request once and
skipping policies for resource types they do not look at); ``unary_server`` serves it on one
loop over grpcio's core, with ``grpc.server`` as the fallback (``serve_analyzer`` picks).
"""
