import type { ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyServerOptions } from 'fastify';
import type { Config } from '../config.js';
import { ERROR_CODE_HEADER, type ErrorCode } from '../shared/error-catalogue.js';

/**
 * What one client may hold of the server (docs/http.md). Without these a
 * client that announces a large body and trickles it a byte at a time holds a
 * connection, a file descriptor and a growing buffer forever: Fastify's
 * request timeout is off by default, and Node only looks for overdue
 * requests every 30 seconds.
 */
export function connectionOptions(
  config: Config,
): Pick<FastifyServerOptions, 'requestTimeout' | 'keepAliveTimeout' | 'clientErrorHandler'> & { http: ServerOptions } {
  return {
    // Headers and body together must arrive within this time.
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    http: {
      headersTimeout: Math.min(config.headersTimeoutMs, config.requestTimeoutMs),
      // How often Node looks for requests past their deadline: often enough that a deadline means what it says.
      connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(config.requestTimeoutMs / 4))),
    },
    clientErrorHandler: answerClientError,
  };
}

/**
 * Errors Node meets before a request reaches Fastify (malformed requests,
 * oversized headers, deadlines) leave as `{detail}` like every other error,
 * and the connection is closed: after a framing error nothing more on it can
 * be trusted.
 */
function answerClientError(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, reason, code, detail] = describeClientError(err.code);
  const body = JSON.stringify({ detail });
  // Destroyed once the answer is out, not merely half-closed: a client that
  // keeps sending would otherwise keep the connection (and its descriptor) open.
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nconnection: close\r\n${ERROR_CODE_HEADER}: ${code}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    () => socket.destroy(),
  );
  // A client that reads nothing never lets the answer out; it gets no longer for that.
  setTimeout(() => socket.destroy(), 1000).unref();
}

function describeClientError(code: string | undefined): [number, string, ErrorCode, string] {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return [431, 'Request Header Fields Too Large', 'headers_too_large', 'the request headers are too large'];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'Request Timeout', 'request_timeout', 'the request did not arrive in time; send the headers and the whole body promptly'];
    case 'HPE_INVALID_CHUNK_SIZE':
    case 'HPE_INVALID_TRANSFER_ENCODING':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
    case 'HPE_INVALID_CONTENT_LENGTH':
      return [400, 'Bad Request', 'http_malformed', 'the request body is not framed correctly (content-length or chunked encoding)'];
    default:
      return [400, 'Bad Request', 'http_malformed', 'the request is not valid HTTP'];
  }
}
