"""How the pack is served to the engine, apart from the rules it serves.

``analyzer_servicer`` is the Analyzer servicer (the SDK's, reading each request once and
skipping policies for resource types they do not look at); ``unary_server`` is a one-loop gRPC
server over grpcio's core; ``serve`` serves the servicer on it, or on ``grpc.server`` as the
fallback, and announces the port to the engine.
"""
