"""Run the command line: ``python -m sslcustomize``."""

from sslcustomize._cli import entrypoint

if __name__ == "__main__":
    entrypoint()
