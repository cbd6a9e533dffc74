"""aiohttp: ssl=False and verify_ssl=False on sessions, requests and connectors."""
import aiohttp
from aiohttp import ClientSession, TCPConnector

NO_SSL = False


async def requests_(url):
    async with aiohttp.ClientSession() as session:
        await session.get(url, ssl=False)  # expect: SSC103
        await session.post(url, json={}, verify_ssl=False)  # expect: SSC103
        await session.request("GET", url, ssl=NO_SSL)  # expect: SSC103
        await session.ws_connect(url, ssl=False)  # expect: SSC103


async def connectors():
    conn = aiohttp.TCPConnector(ssl=False)  # expect: SSC103
    legacy = TCPConnector(limit=10, verify_ssl=False)  # expect: SSC103
    async with ClientSession(connector=TCPConnector(ssl=False)) as s:  # expect: SSC103
        return conn, legacy, s


async def top_level(url):
    async with aiohttp.request("GET", url, ssl=False) as resp:  # expect: SSC103
        return await resp.text()


async def unknown_session(session, url):
    return await session.get(url, ssl=False)  # expect: SSC103


async def via_kwargs(url):
    opts = {"ssl": False}  # expect: SSC103
    async with ClientSession() as s:
        return await s.get(url, **opts)


# --- look-alikes ---------------------------------------------------------------------------

import ssl


async def safe(url, ctx):
    async with aiohttp.ClientSession() as session:
        await session.get(url, ssl=True)  # expect: none
        await session.get(url, ssl=ctx)  # expect: none
        await session.get(url, ssl=ssl.create_default_context())  # expect: none
        await session.get(url)  # expect: none
    aiohttp.TCPConnector(ssl=ctx)  # expect: none
    server = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=None)  # expect: none


async def falsy_ssl(url):
    async with aiohttp.ClientSession() as session:
        await session.get(url, ssl=0)  # expect: SSC103
        await session.post(url, verify_ssl="")  # expect: SSC103
        await session.get(url, ssl=None)  # expect: none
