"""Settings imported by name from requests_httpx.py (not a family: it has no labels)."""
INSECURE_TLS = False
CA_PATH = "/etc/ssl/corp-ca.pem"
