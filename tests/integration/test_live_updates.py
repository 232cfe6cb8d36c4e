"""Live updates: SSE fed by the in-process broker or Redis pub/sub; a lost Redis never loses a move."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import redis

from service.adapters.broker import InProcessBroker, RedisBroker
from service.app import create_app
from tests.conftest import make_config
from tests.support.aio import run_async
from tests.support.api import ApiHelper
from tests.support.services import redis_url
from tests.support.sse import SseReader
from tests.support.tcp_proxy import TcpProxy

SIDES = {"red": "alice", "blue": "bob"}
DEAD_REDIS = "redis://127.0.0.1:6399/0"  # nothing listens there


def versions_heard(sub: Any, count: int, within: float = 10.0) -> list[int]:
    """The ``version`` of each message ``sub`` hears, until ``count`` or ``within`` seconds (the
    subscription's own confirmation is not a message: ``get`` gives None for it)."""
    heard: list[int] = []
    deadline = time.monotonic() + within
    while len(heard) < count and time.monotonic() < deadline:
        got = sub.get(0.25)
        if got is not None:
            heard.append(got["version"])
    return heard


def stream(api: ApiHelper, game_id: str, window: int = 3) -> SseReader:
    response = api.client.get(
        f"/api/games/{game_id}/stream",
        query_string={"window": window},
        buffered=False,
        headers=api.user("alice"),  # a player: the game is private
    )
    assert response.status_code == 200 and response.mimetype == "text/event-stream"
    return SseReader(response)


def test_in_process_broker_fans_out_to_subscribers() -> None:
    broker = InProcessBroker()
    a, b = broker.subscribe("game:1"), broker.subscribe("game:1")
    other = broker.subscribe("game:2")
    broker.publish("game:1", {"version": 2})
    assert a.get(1) == {"version": 2} and b.get(1) == {"version": 2}
    assert other.get(0.05) is None
    a.close()
    broker.publish("game:1", {"version": 3})
    assert a.get(0.05) is None and b.get(1) == {"version": 3}


def test_sse_stream_announces_a_move_in_process(api: ApiHelper) -> None:
    game = api.create_game("skirmish", "meeting", SIDES)
    reader = stream(api, game["id"])
    assert api.command(game["id"], "alice", {"type": "end_phase"}).status_code == 201
    message = reader.wait_for("game")
    moved = game["version"] + 2  # the command and its phase end, after the accepted invitation
    assert message["data"]["version"] == moved and message["id"] == str(moved)
    reader.close()


def test_stream_with_last_event_id_catches_up_at_once(api: ApiHelper) -> None:
    game = api.create_game("skirmish", "meeting", SIDES)
    api.command(game["id"], "alice", {"type": "end_phase"})
    response = api.client.get(
        f"/api/games/{game['id']}/stream",
        query_string={"window": 1},
        headers={"Last-Event-ID": str(game["version"]), **api.user("alice")},
        buffered=False,
    )
    reader = SseReader(response)
    assert reader.wait_for("game")["data"]["version"] == game["version"] + 2
    reader.close()


def test_redis_pubsub_round_trip() -> None:
    broker = RedisBroker(redis_url())
    sub = broker.subscribe("game:test")
    assert broker.publish("game:test", {"version": 7})
    got = None
    for _ in range(20):
        got = sub.get(0.25)
        if got:
            break
    assert got == {"version": 7}
    sub.close()


def test_any_worker_serves_any_client_through_redis(tmp_path: Path) -> None:
    """A client of worker B sees a move made through worker A (same store, same Redis)."""
    url = redis_url()
    config = make_config(tmp_path, redis_url=url)
    worker_a, worker_b = create_app(config), create_app(config)
    api_a, api_b = ApiHelper(worker_a.test_client()), ApiHelper(worker_b.test_client())
    game = api_a.create_game("skirmish", "meeting", SIDES)
    api_b.tokens = api_a.tokens
    reader = stream(api_b, game["id"])
    import time

    time.sleep(0.3)  # let B's subscription reach Redis before A publishes
    assert api_a.command(game["id"], "alice", {"type": "end_phase"}).status_code == 201
    assert reader.wait_for("game")["data"]["version"] == game["version"] + 2
    reader.close()


def test_commands_succeed_when_redis_is_down_and_the_stream_degrades(tmp_path: Path) -> None:
    app = create_app(make_config(tmp_path, redis_url=DEAD_REDIS))
    api = ApiHelper(app.test_client())
    game = api.create_game("skirmish", "meeting", SIDES)
    health = api.client.get("/healthz").get_json()
    assert health["live"] == "redis" and health["live_ok"] is False
    reader = stream(api, game["id"])
    assert reader.wait_for("degraded")["data"]["reason"]
    r = api.command(game["id"], "alice", {"type": "end_phase"})
    assert r.status_code == 201
    assert api.game(game["id"])["version"] == game["version"] + 2
    broker = app.extensions["arbiter"].broker
    assert broker.flush() and broker.failures >= 1
    # the degraded stream polls the store, which is the truth, so the client still hears of it
    assert reader.wait_for("game")["data"]["version"] == game["version"] + 2
    reader.close()


def test_redis_lost_mid_game_then_back(tmp_path: Path) -> None:
    url = redis_url()
    app = create_app(make_config(tmp_path, redis_url=url))
    api = ApiHelper(app.test_client())
    game = api.create_game("skirmish", "meeting", SIDES)
    broker = app.extensions["arbiter"].broker
    real_client = broker.client
    broker._client = RedisBroker(DEAD_REDIS).client  # the connection is cut
    assert api.command(game["id"], "alice", {"type": "end_phase"}).status_code == 201
    assert broker.flush() and broker.failures >= 1
    broker._client = real_client
    broker._down_since = None  # the retry delay has passed
    assert api.command(game["id"], "alice", {"type": "end_phase"}).status_code == 201
    events = api.events(game["id"])
    assert [e["type"] for e in events] == [
        "GameCreated",
        "Invited",  # alice named bob: he accepted (tests/support/api.py)
        "InvitationAccepted",
        "CommandAccepted",
        "PhaseEnded",
        "CommandAccepted",
        "PhaseEnded",
    ]


def test_publishing_never_waits_for_redis_and_keeps_the_order() -> None:
    """A publish is queued and returns at once; the publisher thread sends the queue in order,
    many messages in one round trip; a publish while Redis is away is counted, never raised."""
    broker = RedisBroker(redis_url())
    sub = broker.subscribe("game:order")
    for version in range(300):
        assert broker.publish("game:order", {"version": version})
    assert broker.flush()
    heard = versions_heard(sub, 300)
    assert heard == list(range(300)) and broker.failures == 0
    sub.close()
    dead = RedisBroker(DEAD_REDIS)
    assert dead.publish("game:x", {"version": 1})  # queued: the command does not wait
    assert dead.flush() and dead.failures == 1
    assert not dead.publish("game:x", {"version": 2})  # known down: counted, not queued
    assert dead.failures == 2


def test_publishing_goes_on_after_redis_drops_the_connection() -> None:
    """The publisher holds one connection: when Redis closes it (a restart, an idle client
    dropped), the next batch is sent on a new one at once, not counted as lost."""
    real = urlsplit(redis_url())
    proxy = TcpProxy(real.port or 6379, real.hostname or "127.0.0.1")
    proxy.start()
    try:
        broker = RedisBroker(f"redis://127.0.0.1:{proxy.port}{real.path}")
        listener = RedisBroker(redis_url())  # held: its client closes its connections when freed
        sub = listener.subscribe("game:dropped")
        assert broker.publish("game:dropped", {"version": 1}) and broker.flush()
        proxy.stop()  # every connection through it is cut ...
        proxy.start()  # ... and Redis is reachable again, on new connections
        assert broker.publish("game:dropped", {"version": 2}) and broker.flush()
        heard = versions_heard(sub, 2)
        assert heard == [1, 2]
        assert broker.failures == 0
        sub.close()
    finally:
        proxy.stop()


def test_async_in_process_subscription_hears_a_publish_from_any_thread() -> None:
    """The bridge the ASGI streams await: a command's thread publishes, the event loop hears it."""
    broker = InProcessBroker()

    async def scenario() -> tuple[object, object, object]:
        sub = await broker.subscribe_async("game:1")
        quiet = await sub.get(0.05)
        threading.Thread(target=broker.publish, args=("game:1", {"version": 2})).start()
        heard = await sub.get(2)
        await sub.close()
        broker.publish("game:1", {"version": 3})
        return quiet, heard, await sub.get(0.05)

    assert run_async(scenario()) == (None, {"version": 2}, None)


def test_async_redis_subscription_round_trip_then_lost() -> None:
    url = redis_url()
    broker = RedisBroker(url)

    async def scenario() -> tuple[object, str]:
        sub = await broker.subscribe_async("game:async")
        assert broker.publish("game:async", {"version": 7})
        got = None
        for _ in range(20):
            got = got or await sub.get(0.25)
        host, port = sub._pubsub.connection._writer.get_extra_info("sockname")[:2]
        redis.Redis.from_url(url).client_kill(f"{host}:{port}")  # only this subscriber's connection
        try:
            for _ in range(20):
                await sub.get(0.25)
        except ConnectionError as exc:
            return got, str(exc)
        finally:
            await sub.close()
        return got, "not lost"

    got, lost = run_async(scenario())
    assert got == {"version": 7} and lost.startswith("live updates lost")


def test_async_subscribe_to_a_dead_redis_raises_connection_error() -> None:
    async def scenario() -> str:
        try:
            await RedisBroker(DEAD_REDIS).subscribe_async("game:x")
        except ConnectionError as exc:
            return str(exc)
        return "subscribed"

    assert run_async(scenario()).startswith("live updates unavailable")


def test_an_async_stream_outlives_a_store_outage_while_redis_is_down() -> None:
    """Degraded (no broker) and the store's first poll fails: the stream goes on and announces
    the move once the store answers."""

    from service.api.async_stream import Follower
    from service.api.stream import RETRY, Plan

    polls: list[object] = [RuntimeError("store down"), {"version": 5}]

    def idle(degraded: bool) -> dict | None:
        assert degraded
        step = polls.pop(0) if polls else None
        if isinstance(step, Exception):
            raise step
        return step  # type: ignore[return-value]

    class LostBroker:
        async def subscribe_async(self, channel: str) -> None:
            raise ConnectionError("live updates unavailable: down")

    plan = Plan(
        broker=LostBroker(),  # type: ignore[arg-type]
        channel="game:x",
        kind="game",
        since=1,
        window=2.5,
        position=lambda note: int(note["version"]),
        idle=idle,
    )

    async def collect() -> list[str]:
        with ThreadPoolExecutor(1) as pool:
            return [m async for m in Follower(plan, pool).events()]

    out = run_async(collect())
    assert out[0] == RETRY and out[1].startswith("event: degraded")
    assert out[2:] == ['id: 5\nevent: game\ndata: {"version": 5}\n\n']


def test_once_redis_is_reached_a_publish_is_written_at_once_without_the_publisher_thread() -> None:
    """The first publish goes through the publisher thread, which then opens the pipe; later ones
    are written on the pipe by the caller (nothing queued), in order, and all are heard."""
    broker = RedisBroker(redis_url())
    sub = broker.subscribe("game:pipe")
    assert broker.publish("game:pipe", {"version": 0}) and broker.flush()
    queued: list[tuple[str, str]] = []
    real_queue = broker._queue
    broker._queue = lambda message: (queued.append(message), real_queue(message))  # type: ignore[method-assign]
    for version in range(1, 200):
        assert broker.publish("game:pipe", {"version": version})
    assert queued == []  # none handed to the thread
    assert broker.flush() and broker.failures == 0
    heard = versions_heard(sub, 200)
    assert heard == list(range(200))
    sub.close()


class CountingSocket:
    """A socket whose reads are counted (everything else is the socket's own)."""

    def __init__(self, sock: Any) -> None:
        self._sock = sock
        self.reads = 0

    def recv(self, size: int) -> bytes:
        self.reads += 1
        return bytes(self._sock.recv(size))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)


def test_a_publish_on_the_pipe_reads_the_socket_once() -> None:
    """Before each write the pipe reads what answers have come: one read, not a second one to
    find nothing more (each read is a system call and a turn of the interpreter lock)."""
    broker = RedisBroker(redis_url())
    sub = broker.subscribe("game:reads")
    assert broker.publish("game:reads", {"version": 0}) and broker.flush()
    pipe = broker._pipe[0] if broker._pipe else None
    assert pipe is not None
    counting = CountingSocket(pipe._sock)
    pipe._sock = counting  # type: ignore[assignment]
    for version in range(1, 101):
        time.sleep(0.001)  # the answer to the one before has come
        assert broker.publish("game:reads", {"version": version})
    assert counting.reads == 100
    assert broker.flush() and broker.failures == 0
    assert versions_heard(sub, 101) == list(range(101))
    sub.close()


def test_a_pipe_whose_connection_redis_killed_gives_its_messages_back() -> None:
    """Redis closes the pipe's connection (CLIENT KILL): what was written and not answered, and
    what comes next, is sent again by the publisher thread on a new connection; none is lost."""
    url = redis_url()
    broker = RedisBroker(url)
    listener = RedisBroker(url)  # held: its client closes its connections when freed
    sub = listener.subscribe("game:killed")
    assert broker.publish("game:killed", {"version": 1}) and broker.flush()
    pipe = broker._pipe[0] if broker._pipe else None
    assert pipe is not None
    host, port = pipe._sock.getsockname()[:2]
    assert redis.Redis.from_url(url).client_kill(f"{host}:{port}")  # Redis's own words: True
    for version in (2, 3):
        assert broker.publish("game:killed", {"version": version})
    assert broker.flush()
    heard = versions_heard(sub, 3)
    assert heard == [1, 2, 3] and broker.failures == 0
    sub.close()
