import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A loopback stand-in for the load balancer in front of several Atrium nodes:
 * one address (the nodes' shared ATRIUM_BASE_URL) and a rule, read from each
 * connection's first request head, for which node serves it. A test can so
 * send the browser to one node and a program to another, as a real balancer
 * may, and watch state travel between them through the database alone.
 */
export class Balancer {
  private readonly sockets = new Set<Socket>();
  private constructor(
    private readonly server: Server,
    private readonly route: (head: string) => number,
  ) {}

  static async start(route: (head: string) => number): Promise<Balancer> {
    const holder: { self?: Balancer } = {};
    const server = createServer((socket) => holder.self!.accept(socket));
    holder.self = new Balancer(server, route);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return holder.self;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private accept(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      if (!head.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      socket.pause();
      const upstream = connect(this.route(head.toString('latin1')), '127.0.0.1');
      this.sockets.add(upstream);
      upstream.on('close', () => {
        this.sockets.delete(upstream);
        socket.destroy();
      });
      upstream.on('error', () => upstream.destroy());
      socket.on('close', () => upstream.destroy());
      upstream.write(head);
      socket.pipe(upstream);
      upstream.pipe(socket);
      socket.resume();
    };
    socket.on('data', onData);
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** The user agent a request head names. */
export function userAgent(head: string): string {
  return /\r\nuser-agent:\s*([^\r\n]*)/i.exec(head)?.[1] ?? '';
}
