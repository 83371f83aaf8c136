// The first thing a start does, before the data folder is touched: bind PORT on HOST, so that a
// port in use or a host that is no address is refused with the setting's name and nothing is
// founded; until the society opens, the socket answers 503 STARTING.
import { createServer, type RequestListener, type Server } from 'node:http';
import { ConfigurationError, type Config } from './config.js';

/** Answers while the society opens, on a socket bound before the data folder was touched. */
export const answerStarting: RequestListener = (_request, response) => {
  response.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
  response.end(
    JSON.stringify({ error: 'STARTING', message: 'The society is starting; try again after Retry-After seconds.' }),
  );
};

/** Binds PORT on HOST, or refuses naming the setting to change. */
export async function listenFirst(config: Config): Promise<Server> {
  const server = createServer(answerStarting);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    throw bindingRefusal(error as NodeJS.ErrnoException, config);
  }
  return server;
}

function bindingRefusal(error: NodeJS.ErrnoException, { port, host }: Config): Error {
  switch (error.code) {
    case 'EADDRINUSE':
      return new ConfigurationError(
        `PORT ${port} is in use on HOST ${host} by another process: stop it, or set PORT to a free port (PORT=0 lets the system choose)`,
      );
    case 'EACCES':
      return new ConfigurationError(`PORT ${port} needs privileges on this machine (EACCES): choose a port above 1023`);
    case 'EADDRNOTAVAIL':
      return new ConfigurationError(
        `HOST ${host} is not an address of this machine (EADDRNOTAVAIL): use 127.0.0.1, 0.0.0.0 (every IPv4 address), :: or one of this machine's addresses`,
      );
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new ConfigurationError(
        `HOST ${host} does not resolve (${error.code}): use an IP address or a name this machine knows`,
      );
    default:
      return error;
  }
}
