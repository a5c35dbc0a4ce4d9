import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { clientKey } from './client-key.js';

/**
 * Who holds the server's connections, and how a newcomer gets one when they
 * are all taken (docs/http.md, "Sharing the server fairly").
 *
 * A cap on open connections protects memory and file descriptors, but a cap
 * alone is a lock anyone can close: a few addresses holding idle sockets or
 * long polls up to their share left every other client with a reset. So a
 * connection that arrives when the server is full takes one from the client
 * that holds the most, if that client holds more than the newcomer's own: an
 * idle connection first (none yet sent a whole request, or it waits between
 * requests), else a long poll, which is answered at once (an ordinary empty
 * poll, `Retry-After`, `Connection: close`). A request being worked on is
 * never cut short. Only when no such connection exists is the newcomer
 * refused. No set of clients can therefore keep out one that holds less than
 * they do, however often they reconnect.
 */
export interface ConnectionShare {
  /**
   * Lets the host end this request's long poll early when it needs the
   * connection for another client; `end` answers the poll. Returns the
   * function that withdraws the offer (the poll ended by itself).
   */
  offerLongPoll(socket: Socket, end: () => void): () => void;
  /** Connections open now, counted against the cap. */
  readonly open: number;
  /** Connections refused, and connections taken back for another client, since start. */
  readonly tally: Readonly<Record<ShareOutcome, number>>;
}

export type ShareOutcome = 'refused_address_cap' | 'refused_full' | 'reclaimed_idle' | 'reclaimed_long_poll';

export interface ShareLimits {
  /** Open connections in all. */
  maxConnections: number;
  /** Open connections one client (clientKey) may hold; undefined behind a trusted proxy, where every connection is the proxy's. */
  maxPerClient: number | undefined;
}

/** A long-poll answer that cannot be delivered (a client that reads nothing) does not hold its connection longer than this. */
const RECLAIM_GRACE_MS = 2000;

interface Held {
  readonly socket: Socket;
  readonly client: string;
  /** Requests received on it and not yet answered (more than one only when pipelined). */
  active: number;
  /** The newest of them: a request whose body is still arriving does not count as being worked on. */
  current: IncomingMessage | undefined;
  /** Ends its long poll, when one is waiting on it. */
  endLongPoll: (() => void) | undefined;
}

export function shareConnections(server: Server, limits: ShareLimits): ConnectionShare {
  const byClient = new Map<string, Set<Held>>();
  const bySocket = new WeakMap<Socket, Held>();
  const tally: Record<ShareOutcome, number> = { refused_address_cap: 0, refused_full: 0, reclaimed_idle: 0, reclaimed_long_poll: 0 };
  let open = 0;

  // Node's own cap is only a backstop here: this table decides, and a reclaimed
  // long poll may still be flushing its answer while its successor is served.
  server.maxConnections = limits.maxConnections + Math.max(64, Math.ceil(limits.maxConnections / 8));

  const forget = (held: Held): boolean => {
    const set = byClient.get(held.client);
    if (!set?.delete(held)) return false;
    if (set.size === 0) byClient.delete(held.client);
    open -= 1;
    return true;
  };

  const isIdle = (held: Held) => held.active === 0 || (held.active === 1 && held.current !== undefined && !held.current.complete);

  /** Frees one connection for a newcomer from `client`; false when no one holds more than the newcomer. */
  const reclaimFor = (client: string): boolean => {
    const own = byClient.get(client)?.size ?? 0;
    const heaviest = [...byClient.entries()].filter(([key, set]) => key === client || set.size > own).sort((a, b) => b[1].size - a[1].size);
    for (const [, set] of heaviest) {
      for (const held of set) {
        if (!isIdle(held)) continue;
        forget(held);
        held.socket.destroy();
        tally.reclaimed_idle += 1;
        return true;
      }
    }
    for (const [, set] of heaviest) {
      for (const held of set) {
        if (held.endLongPoll === undefined) continue;
        const end = held.endLongPoll;
        held.endLongPoll = undefined;
        forget(held);
        end();
        setTimeout(() => held.socket.destroy(), RECLAIM_GRACE_MS).unref();
        tally.reclaimed_long_poll += 1;
        return true;
      }
    }
    return false;
  };

  server.on('connection', (socket: Socket) => {
    const client = clientKey(socket.remoteAddress);
    const mine = byClient.get(client)?.size ?? 0;
    if (limits.maxPerClient !== undefined && mine >= limits.maxPerClient) {
      tally.refused_address_cap += 1;
      socket.destroy();
      return;
    }
    if (open >= limits.maxConnections && !reclaimFor(client)) {
      tally.refused_full += 1;
      socket.destroy();
      return;
    }
    const held: Held = { socket, client, active: 0, current: undefined, endLongPoll: undefined };
    let set = byClient.get(client);
    if (!set) byClient.set(client, (set = new Set()));
    set.add(held);
    open += 1;
    bySocket.set(socket, held);
    socket.once('close', () => forget(held));
  });

  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const held = bySocket.get(request.socket);
    if (!held) return;
    held.active += 1;
    held.current = request;
    response.once('close', () => {
      held.active -= 1;
      if (held.current === request) held.current = undefined;
    });
  });

  return {
    offerLongPoll(socket, end) {
      const held = bySocket.get(socket);
      if (!held) return () => undefined;
      held.endLongPoll = end;
      return () => {
        if (held.endLongPoll === end) held.endLongPoll = undefined;
      };
    },
    get open() {
      return open;
    },
    tally,
  };
}
