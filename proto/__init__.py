"""Generated protobuf and gRPC modules of the Cacao API (installed as ``cacaoai.api``).

The sources are the ``.proto`` files beside the modules; regenerate with
``scripts/gen_proto.sh``. Import the API as ``from cacaoai.api.cacao.v1 import
cacao_pb2, cacao_pb2_grpc``.
"""
