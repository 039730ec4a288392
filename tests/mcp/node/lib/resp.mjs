// A minimal Redis client (RESP2 over a Unix socket or TCP) for tests that look
// at or tamper with what the replicas keep in the store: commands go out one
// at a time and replies come back as Buffers (bulk strings), numbers, arrays,
// null, or an Error object (not thrown) for a Redis error.
import net from 'node:net';

export class Resp {
  // where: {path} for a Unix socket, or {port, host}.
  static connect(where) {
    return new Promise((resolve, reject) => {
      const sock = net.connect(where, () => resolve(new Resp(sock)));
      sock.once('error', reject);
    });
  }

  constructor(sock) {
    this.sock = sock;
    this.buf = Buffer.alloc(0);
    this.waiting = [];
    sock.on('data', (d) => {
      this.buf = Buffer.concat([this.buf, d]);
      this.#drain();
    });
    sock.on('error', () => {});
    sock.on('close', () => {
      for (const w of this.waiting.splice(0)) w.reject(new Error('redis connection closed'));
    });
  }

  // One command; arguments are strings or Buffers.
  command(...args) {
    const parts = [Buffer.from(`*${args.length}\r\n`)];
    for (const a of args) {
      const b = Buffer.isBuffer(a) ? a : Buffer.from(String(a));
      parts.push(Buffer.from(`$${b.length}\r\n`), b, Buffer.from('\r\n'));
    }
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.sock.write(Buffer.concat(parts));
    });
  }

  // Every key matching `pattern` (SCAN, so it is safe on a live store).
  async keys(pattern) {
    const found = [];
    let cursor = '0';
    do {
      const [next, batch] = await this.command('SCAN', cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next.toString();
      for (const k of batch) found.push(k.toString());
    } while (cursor !== '0');
    return found.sort();
  }

  close() {
    this.sock.end();
  }

  #drain() {
    for (;;) {
      const parsed = parse(this.buf, 0);
      if (!parsed) return;
      this.buf = this.buf.subarray(parsed.end);
      this.waiting.shift()?.resolve(parsed.value);
    }
  }
}

// One reply at `at`: {value, end}, or null when the buffer does not hold all of it yet.
function parse(buf, at) {
  const eol = buf.indexOf('\r\n', at);
  if (eol < 0) return null;
  const kind = String.fromCharCode(buf[at]);
  const line = buf.toString('utf8', at + 1, eol);
  const after = eol + 2;
  switch (kind) {
    case '+':
      return { value: line, end: after };
    case '-':
      return { value: new Error(line), end: after };
    case ':':
      return { value: Number(line), end: after };
    case '$': {
      const n = Number(line);
      if (n < 0) return { value: null, end: after };
      if (buf.length < after + n + 2) return null;
      return { value: buf.subarray(after, after + n), end: after + n + 2 };
    }
    case '*': {
      const n = Number(line);
      if (n < 0) return { value: null, end: after };
      const items = [];
      let end = after;
      for (let i = 0; i < n; i++) {
        const item = parse(buf, end);
        if (!item) return null;
        items.push(item.value);
        end = item.end;
      }
      return { value: items, end };
    }
    default:
      throw new Error(`unexpected RESP reply: ${buf.toString('utf8', at, Math.min(buf.length, at + 40))}`);
  }
}
