"""websockets and websocket-client with verification turned off."""
import ssl

import websocket
import websockets
from websocket import WebSocketApp, create_connection


def websocket_client(url):
    create_connection(url, sslopt={"cert_reqs": ssl.CERT_NONE})  # expect: SSC501
    websocket.create_connection(url, sslopt={"check_hostname": False})  # expect: SSC501
    ws = websocket.WebSocket(sslopt={"cert_reqs": ssl.CERT_NONE,  # expect: SSC501
                                     "check_hostname": False})  # expect: SSC501
    app = WebSocketApp(url)
    app.run_forever(sslopt={"cert_reqs": ssl.CERT_NONE})  # expect: SSC501
    opts = {"cert_reqs": ssl.CERT_NONE}  # expect: SSC501
    websocket.create_connection(url, sslopt=opts)
    return ws


async def websockets_lib(url):
    ctx = ssl.create_default_context()
    ctx.check_hostname = False  # expect: SSC202
    ctx.verify_mode = ssl.CERT_NONE  # expect: SSC201
    async with websockets.connect(url, ssl=ctx) as ws:
        await ws.send("hi")
    async with websockets.connect(url, ssl=ssl._create_unverified_context()) as ws:  # expect: SSC203
        await ws.recv()


async def websockets_bare(url):
    insecure = ssl.SSLContext(ssl.PROTOCOL_TLS)  # expect: SSC204
    return await websockets.connect(url, ssl=insecure)


# --- look-alikes ---------------------------------------------------------------------------

async def safe(url, ca, handler):
    websocket.create_connection(url, sslopt={"cert_reqs": ssl.CERT_REQUIRED, "ca_certs": ca})  # expect: none
    websocket.create_connection(url, sslopt={"check_hostname": True})  # expect: none
    ctx = ssl.create_default_context(cafile=ca)  # expect: none
    async with websockets.connect(url, ssl=ctx) as ws:  # expect: none
        await ws.recv()
    server_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)  # expect: none
    server_ctx.verify_mode = ssl.CERT_NONE  # expect: none
    return await websockets.serve(handler, "127.0.0.1", 0, ssl=server_ctx)
