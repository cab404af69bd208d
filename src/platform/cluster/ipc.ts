import cluster, { Worker } from 'node:cluster';

/**
 * Request and answer between cluster workers and their primary, over the
 * IPC channel node:cluster sets up. Used for what must be counted or
 * gathered in one place across workers (rate-limit counters, metrics).
 */
interface IpcRequest {
  verity: 'request';
  channel: string;
  id: number;
  payload: unknown;
}

interface IpcAnswer {
  verity: 'answer';
  id: number;
  result?: unknown;
  error?: string;
}

const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
let nextId = 1;
let listening = false;

function isAnswer(message: unknown): message is IpcAnswer {
  return typeof message === 'object' && message !== null && (message as IpcAnswer).verity === 'answer';
}

function isRequest(message: unknown): message is IpcRequest {
  return typeof message === 'object' && message !== null && (message as IpcRequest).verity === 'request';
}

/** True in a worker of a cluster (WEB_CONCURRENCY > 1). */
export function inClusterWorker(): boolean {
  return cluster.isWorker && typeof process.send === 'function';
}

/** From a worker: asks the primary and waits for its answer. */
export function askPrimary<T>(channel: string, payload: unknown): Promise<T> {
  if (!listening) {
    listening = true;
    process.on('message', (message: unknown) => {
      if (!isAnswer(message)) return;
      const waiter = pending.get(message.id);
      if (!waiter) return;
      pending.delete(message.id);
      if (message.error !== undefined) waiter.reject(new Error(message.error));
      else waiter.resolve(message.result);
    });
    // The channel closes with the primary: nobody will answer what is still waiting.
    process.once('disconnect', () => {
      for (const waiter of pending.values()) waiter.reject(new Error('The cluster primary is gone.'));
      pending.clear();
    });
  }
  return new Promise<T>((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
    const request: IpcRequest = { verity: 'request', channel, id, payload };
    process.send!(request, undefined, undefined, (error: Error | null) => {
      if (!error) return;
      pending.delete(id);
      reject(error);
    });
  });
}

/** In the primary: answers every worker's requests on `channel`. */
export function answerWorkers(
  channel: string,
  handler: (payload: unknown, worker: Worker) => Promise<unknown>,
): void {
  cluster.on('message', (worker: Worker, message: unknown) => {
    if (!isRequest(message) || message.channel !== channel) return;
    const reply = (answer: Omit<IpcAnswer, 'verity' | 'id'>) => {
      if (worker.isConnected())
        worker.send({ verity: 'answer', id: message.id, ...answer } satisfies IpcAnswer);
    };
    handler(message.payload, worker).then(
      (result) => reply({ result }),
      (error: unknown) => reply({ error: error instanceof Error ? error.message : String(error) }),
    );
  });
}
