#!/usr/bin/env python3
"""A loopback OpenAI-compatible chat-completions server that answers with scripted replies.

For end-to-end runs of the llm proposer where no provider can be reached (the GPU machines have no
network): it speaks the documented wire format (POST /v1/chat/completions, `stream: true` as SSE
`data:` chunks with a final usage chunk and `data: [DONE]`, or one JSON body), and answers each
request with the next scripted reply for that request's job and kind. The replies are real kernel
rewrites kept as test fixtures (tests/llm/fixtures); nothing here is a model, and every run that
uses it says so.

  scripted_llm_server.py --port 8765 --manifest tests/llm/fixtures/manifest.json --log calls.jsonl

The manifest: {"replies": [{"job": "sgemm", "kind": "propose", "file": "sgemm/iter1.reply"}, ...]}
(files relative to the manifest). A request's job is the problem named in its prompt
(`name = "<job>"` of the problem spec the prompt quotes); its kind is fix_compile, fix_correctness,
reask or propose, read from the instruction text the prompt carries. Replies of one (job, kind) are
served in manifest order; past the last one, the server answers 503 (the client's retries then
give up and the proposer records why).
"""
import argparse
import json
import os
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

KINDS = [
    ("fix_compile", "NVRTC rejected this variant"),
    ("fix_correctness", "outputs differ from the reference"),
]


def request_kind(messages):
    last_user = next((m.get("content", "") for m in reversed(messages) if m.get("role") == "user"), "")
    if any(m.get("role") == "assistant" for m in messages):
        return "reask"
    for kind, marker in KINDS:
        if marker in last_user:
            return kind
    return "propose"


def request_job(messages, jobs):
    text = "\n".join(m.get("content", "") for m in messages)
    for job in jobs:
        if re.search(r'name\s*=\s*"%s"' % re.escape(job), text):
            return job
    return None


class Script:
    def __init__(self, manifest_path):
        with open(manifest_path) as f:
            manifest = json.load(f)
        base = os.path.dirname(os.path.abspath(manifest_path))
        self.queues = {}
        for entry in manifest["replies"]:
            with open(os.path.join(base, entry["file"])) as f:
                text = f.read()
            self.queues.setdefault((entry["job"], entry["kind"]), []).append((entry["file"], text))
        self.jobs = sorted({job for job, _ in self.queues}, key=len, reverse=True)
        self.lock = threading.Lock()

    def next(self, job, kind):
        with self.lock:
            queue = self.queues.get((job, kind), [])
            return queue.pop(0) if queue else None


def sse(chunk):
    return ("data: " + json.dumps(chunk) + "\n\n").encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def fail(self, status, message):
        body = json.dumps({"error": {"message": message, "type": "scripted_server"}}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if not self.path.endswith("/chat/completions"):
            return self.fail(404, "only /v1/chat/completions is served")
        request = json.loads(body)
        messages = request.get("messages", [])
        job, kind = request_job(messages, self.server.script.jobs), request_kind(messages)
        if request.get("max_tokens") == 1 or request.get("max_completion_tokens") == 1:
            job, kind, picked = job, "ping", ("ping", "ok")
        else:
            picked = self.server.script.next(job, kind)
        self.server.record({"job": job, "kind": kind, "reply": picked[0] if picked else None,
                            "request_bytes": len(body)})
        if picked is None:
            return self.fail(503, "no scripted reply left for job %s, kind %s" % (job, kind))
        text = picked[1]
        usage = {"prompt_tokens": len(body) // 4, "completion_tokens": max(1, len(text) // 4),
                 "total_tokens": len(body) // 4 + max(1, len(text) // 4)}
        model = request.get("model", "scripted")
        if not request.get("stream"):
            out = json.dumps({"id": "scripted", "object": "chat.completion", "model": model,
                              "choices": [{"index": 0, "finish_reason": "stop",
                                           "message": {"role": "assistant", "content": text}}],
                              "usage": usage}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        pieces = [text[i:i + 400] for i in range(0, len(text), 400)] or [""]
        chunks = [sse({"id": "scripted", "object": "chat.completion.chunk", "model": model,
                       "choices": [{"index": 0, "delta": {"role": "assistant", "content": p}, "finish_reason": None}]})
                  for p in pieces]
        chunks.append(sse({"id": "scripted", "object": "chat.completion.chunk", "model": model,
                           "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}))
        chunks.append(sse({"id": "scripted", "object": "chat.completion.chunk", "model": model, "choices": [],
                           "usage": usage}))
        chunks.append(b"data: [DONE]\n\n")
        for c in chunks:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(c), c))
        self.wfile.write(b"0\r\n\r\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8765, help="0: a free port (printed)")
    parser.add_argument("--manifest", required=True)
    parser.add_argument("--log", default=None, help="one JSON line per request")
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.script = Script(args.manifest)
    log_lock = threading.Lock()

    def record(entry):
        line = json.dumps(entry)
        print(line, file=sys.stderr, flush=True)
        if args.log:
            with log_lock, open(args.log, "a") as f:
                f.write(line + "\n")

    server.record = record
    print("scripted llm server on http://127.0.0.1:%d/v1" % server.server_address[1], file=sys.stderr, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
