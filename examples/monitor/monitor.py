#!/usr/bin/env python3
"""Watch a warpforge campaign from anywhere over its ZeroMQ feed, missing nothing.

The recipe (docs/events.md, "Replay over the network"), the ZeroMQ guide's snapshot + updates:
  1. subscribe to the feed first, and hold what arrives;
  2. ask the replay endpoint for the stored events since the last seq you have;
  3. hand out events by seq, each once: skip a seq you already have, and when a seq jumps
     (or a heartbeat's seq is ahead of yours) ask the replay endpoint for the ones in between;
  4. heartbeats come every second: none for --silence seconds means the campaign (or its host,
     or the network) is gone, not merely quiet.

    python3 monitor.py tcp://gpu-node:5757                # every event since seq 1, then live
    python3 monitor.py --run-dir runs/quickstart-... --json --exit-on-end
    python3 monitor.py tcp://gpu-node:5757 --since 1200 --silence 10

A run directory whose campaign is no longer running (nobody holds its owner.lock) has no feed to
listen to: its stored events are read from its warpforge.db instead, to the campaign's end event.

Needs pyzmq for a live feed (Debian: apt install python3-zmq; else pip install pyzmq); a finished
run directory needs only the standard library. Prints one line per event on stdout (--json: the
event's JSON exactly as published); notes about silence and gaps go to stderr.
Exit status: 0 the campaign ended (--exit-on-end, or a finished run read to its end) or --count
events were shown; 3 the feed was silent (--exit-on-silence); 2 bad command line or no pyzmq;
1 the feed cannot be reached or read.
"""

import argparse
import errno
import fcntl
import json
import pathlib
import sqlite3
import sys
import time

zmq = None  # pyzmq, imported by need_zmq() only when a live feed is followed

SCHEMA = 1                      # the event schema this script reads (docs/events.md, Versioning)
END_TYPES = {"campaign_finished", "campaign_failed", "campaign_interrupted"}
POLL_S = 0.2                    # how long one wait for a message lasts [s]
REPLAY_TIMEOUT_S = 5.0          # how long a replay request may take [s]
REPLAY_RETRY_S = 0.2            # pause before asking again after a short or failed reply [s]
WILDCARD_HOSTS = {"*", "0.0.0.0", "[::]"}


def need_zmq():
    """Imports pyzmq, or says in one line how to install it and exits 2."""
    global zmq
    try:
        import zmq as module
    except ImportError:
        print("monitor: a live feed needs pyzmq: apt install python3-zmq (Debian, Ubuntu) "
              "or pip install pyzmq", file=sys.stderr)
        sys.exit(2)
    zmq = module


def run_is_live(run_dir):
    """Whether a process holds the run directory's owner.lock (storage/run_owner.hpp): the
    kernel drops that flock when the campaign exits, however it exits."""
    try:
        with open(pathlib.Path(run_dir) / "owner.lock", "rb") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except OSError as problem:
                if problem.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                    return True
                raise
            fcntl.flock(lock, fcntl.LOCK_UN)
            return False
    except FileNotFoundError:
        return False


def stored_events(run_dir, since):
    """(json text, event) for each stored event after `since`, in seq order, from the run's own
    database, opened read-only."""
    database = pathlib.Path(run_dir).resolve() / "warpforge.db"
    if not database.exists():
        raise OSError(f"no store at {database}")
    connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    try:
        for (text,) in connection.execute("SELECT json FROM events WHERE seq > ? ORDER BY seq", (since,)):
            event = json.loads(text)
            if event.get("schema") != SCHEMA:
                raise SystemExit(f"the store holds schema {event.get('schema')}, this script reads {SCHEMA}")
            yield text, event
    finally:
        connection.close()


def replay_finished(args):
    """A finished run's stored events, to its end event; exit status as for a live feed."""
    shown = 0
    try:
        for text, event in stored_events(args.run_dir, args.since):
            print(text if args.json else describe(event), flush=True)
            shown += 1
            if args.count is not None and shown >= args.count:
                return 0
            if event["type"] in END_TYPES:
                return 0
    except (OSError, sqlite3.Error) as problem:
        print(f"monitor: {args.run_dir}: {problem}", file=sys.stderr)
        return 1
    print(f"monitor: {args.run_dir}: the campaign is not running and its store holds no end event "
          "(it was killed; warpforge resume continues it)", file=sys.stderr)
    return 0


def reachable(advertised, feed_endpoint):
    """A replay endpoint advertised with a wildcard host, made reachable: the feed's host."""
    scheme, _, rest = advertised.partition("://")
    host, _, port = rest.rpartition(":")
    if scheme != "tcp" or host not in WILDCARD_HOSTS:
        return advertised
    feed_host = feed_endpoint.partition("://")[2].rpartition(":")[0]
    return f"tcp://{feed_host}:{port}"


class Replay:
    """The replay endpoint's client: one REQ socket, replaced when a reply does not come
    (a REQ socket cannot send again before it got its reply: the guide's "lazy pirate")."""

    def __init__(self, context, endpoint):
        self.context = context
        self.endpoint = endpoint
        self.socket = None
        self._open()

    def _open(self):
        if self.socket is not None:
            self.socket.close(linger=0)
        self.socket = self.context.socket(zmq.REQ)
        self.socket.setsockopt(zmq.LINGER, 0)
        self.socket.connect(self.endpoint)

    def fetch(self, after, until=None):
        """The stored events with after < seq <= until (all of them when until is None), in
        seq order, as (seq, json text, event); raises RuntimeError on a refusal or no reply."""
        events = []
        while True:
            request = {"after": after}
            if until is not None:
                request["until"] = until
            self.socket.send_json(request)
            if not self.socket.poll(int(REPLAY_TIMEOUT_S * 1000)):
                self._open()
                raise RuntimeError(f"{self.endpoint} did not answer in {REPLAY_TIMEOUT_S} s")
            header_frame, *event_frames = self.socket.recv_multipart()
            header = json.loads(header_frame)
            if header["status"] != "ok":
                raise RuntimeError(f"replay refused: {header['status']}: "
                                   f"{header.get('place', '')}: {header.get('message', '')}")
            for frame in event_frames:
                text = frame.decode()
                event = json.loads(text)
                events.append((event["seq"], text, event))
            if not header["more"] or not event_frames:
                return events
            after = header["last"]


class Monitor:
    """Every event of the feed once, in seq order (the same logic as feed::follower in C++)."""

    def __init__(self, feed_endpoint, replay_endpoint, since, silence_s):
        self.context = zmq.Context()
        self.feed_endpoint = feed_endpoint
        self.sub = self.context.socket(zmq.SUB)
        self.sub.setsockopt(zmq.RCVHWM, 100_000)     # queue this many before the feed drops
        self.sub.setsockopt_string(zmq.SUBSCRIBE, "")  # everything: a filter would hide gaps
        self.sub.connect(feed_endpoint)                # 1. subscribe first
        self.replay = Replay(self.context, replay_endpoint) if replay_endpoint else None
        self.replay_learnt = False
        self.last = since                  # last seq handed out; None: start with what is live
        self.initial_pending = since is not None
        self.held = {}                     # seq -> (json text, event): live, waiting behind a gap
        self.ready = []                    # (json text, event) in seq order
        self.known = 0                     # highest seq known to exist
        self.silence_s = silence_s
        self.started = time.monotonic()
        self.last_heard = None
        self.gap_since = None
        self.next_try = 0.0
        self.missed = 0

    def silent_for(self):
        """Seconds since the feed was last heard (since the start when never)."""
        return time.monotonic() - (self.last_heard or self.started)

    def _absorb(self, text):
        event = json.loads(text)
        if event.get("schema") != SCHEMA:
            raise SystemExit(f"the feed speaks schema {event.get('schema')}, this script reads {SCHEMA}")
        self.last_heard = time.monotonic()
        seq = event["seq"]
        if event["type"] == "heartbeat":  # not an event of the campaign: seq = the last one's
            advertised = event.get("replay_endpoint")
            if advertised and (self.replay is None or self.replay_learnt):
                endpoint = reachable(advertised, self.feed_endpoint)
                if self.replay is None or self.replay.endpoint != endpoint:
                    self.replay = Replay(self.context, endpoint)
                    self.replay_learnt = True
            if self.last is None and not self.initial_pending:
                self.last = seq
            self.known = max(self.known, seq)
            return
        if self.last is None and not self.initial_pending:
            self.last = seq - 1
        if self.last is not None and seq <= self.last:
            return                         # already handed out (the replay and the feed overlap)
        self.known = max(self.known, seq)
        self.held[seq] = (text, event)

    def _fill(self, until):
        """2. ask for what is missing after self.last; True when everything asked for came."""
        if self.replay is None or time.monotonic() < self.next_try:
            return False
        try:
            for seq, text, event in self.replay.fetch(self.last, until):
                if seq > self.last:
                    self.missed += seq - self.last - 1  # never stored: lost for good
                    self.last = seq
                    self.ready.append((text, event))
        except RuntimeError as problem:
            print(f"monitor: {problem}", file=sys.stderr)
            self.next_try = time.monotonic() + REPLAY_RETRY_S
            return False
        if until is not None and self.last < until:
            self.next_try = time.monotonic() + REPLAY_RETRY_S  # the store had not caught up
            return False
        return True

    def _advance(self):
        """3. move what can be handed out, in order, to self.ready."""
        now = time.monotonic()
        if self.initial_pending:
            if self._fill(None):
                self.initial_pending = False
            elif now - self.started >= self.silence_s:
                print("monitor: no replay endpoint answered; following live only", file=sys.stderr)
                self.initial_pending = False
            else:
                return
        self._release()
        if self.last is None:
            return
        gap_end = min(self.held) - 1 if self.held else (self.known if self.known > self.last else None)
        if gap_end is None:
            self.gap_since = None
            return
        self.gap_since = self.gap_since or now
        if self._fill(gap_end):
            self.gap_since = None
        elif now - self.gap_since >= self.silence_s:
            print(f"monitor: events {self.last + 1}..{gap_end} could not be replayed; skipped",
                  file=sys.stderr)
            self.missed += gap_end - self.last
            self.last = gap_end
            self.gap_since = None
        self._release()

    def _release(self):
        while self.held and self.last is not None and min(self.held) <= self.last + 1:
            seq = min(self.held)
            text, event = self.held.pop(seq)
            if seq == self.last + 1:
                self.last = seq
                self.ready.append((text, event))

    def events(self):
        """Yields (json text, event) in seq order, each once; yields None every POLL_S while
        nothing is ready, so the caller can watch for silence."""
        while True:
            self._advance()
            while self.ready:
                yield self.ready.pop(0)
            if self.sub.poll(int(POLL_S * 1000)):
                while self.sub.poll(0):
                    _topic, body = self.sub.recv_multipart()
                    self._absorb(body.decode())
            else:
                yield None


def describe(event):
    """One readable line: '#42 21:03:04 branch_measured transpose iter 3 branch 1 gpu 0: time_s=...'."""
    clock = time.strftime("%H:%M:%S", time.gmtime(event["ts"]))
    place = " ".join(f"{name} {event[name]}" for name in ("iter", "branch", "gpu")
                     if event.get(name) is not None)
    where = " ".join(part for part in (event.get("job") or "", place) if part)
    envelope = {"schema", "seq", "ts", "campaign", "job", "iter", "branch", "gpu", "type"}
    detail = " ".join(f"{key}={json.dumps(value)}" for key, value in event.items() if key not in envelope)
    line = f"#{event['seq']} {clock} {event['type']}"
    return line + (f" {where}" if where else "") + (f": {detail}" if detail else "")


def endpoints_from(run_dir):
    """The feed and replay endpoints a campaign wrote into its run directory."""
    folder = pathlib.Path(run_dir)
    feed = (folder / "feed.endpoint").read_text().strip()
    replay_file = folder / "replay.endpoint"
    return feed, replay_file.read_text().strip() if replay_file.exists() else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("endpoint", nargs="?", help="the feed, e.g. tcp://gpu-node:5757")
    parser.add_argument("--run-dir", help="read the feed and replay endpoints from this run directory")
    parser.add_argument("--replay", help="the replay endpoint (default: from the heartbeats)")
    parser.add_argument("--since", type=int, default=0, help="show events after this seq (default 0: all)")
    parser.add_argument("--live", action="store_true", help="show only what happens from now on")
    parser.add_argument("--silence", type=float, default=5.0,
                        help="seconds without an event or heartbeat before the campaign counts as silent")
    parser.add_argument("--exit-on-end", action="store_true", help="exit once the campaign ended")
    parser.add_argument("--exit-on-silence", action="store_true", help="exit 3 once the feed is silent")
    parser.add_argument("--count", type=int, help="exit after this many events")
    parser.add_argument("--json", action="store_true", help="each event's JSON as published")
    args = parser.parse_args()

    replay = args.replay
    if args.run_dir and not args.live and not run_is_live(args.run_dir):
        return replay_finished(args)  # nothing will be published: the store holds every event
    need_zmq()
    if args.run_dir:
        try:
            endpoint, replay_file_endpoint = endpoints_from(args.run_dir)
        except OSError as problem:
            parser.exit(1, f"monitor: {problem}\n")
        replay = replay or replay_file_endpoint
    elif args.endpoint:
        endpoint = args.endpoint
    else:
        parser.error("give the feed endpoint or --run-dir")

    monitor = Monitor(endpoint, replay, None if args.live else args.since, args.silence)
    shown = 0
    silent_reported = False
    for item in monitor.events():
        silent = monitor.silent_for() >= args.silence  # 4. heartbeats stopped: gone, not quiet
        if silent and not silent_reported:
            print(f"monitor: campaign silent for {monitor.silent_for():.1f} s "
                  f"(last seq {monitor.last}) on {endpoint}", file=sys.stderr, flush=True)
            silent_reported = True
            if args.exit_on_silence:
                return 3
        elif not silent and silent_reported:
            print("monitor: the feed is back", file=sys.stderr, flush=True)
            silent_reported = False
        if item is None:
            continue
        text, event = item
        print(text if args.json else describe(event), flush=True)
        shown += 1
        if args.count is not None and shown >= args.count:
            return 0
        if args.exit_on_end and event["type"] in END_TYPES:
            return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
