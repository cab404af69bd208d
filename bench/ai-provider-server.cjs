// The AI benchmark's provider: a minimal OpenAI-compatible chat-completions server in its own
// process (so its timing is not disturbed by the gateway's event loop). It records how long each
// request spent inside it, from the full body's arrival to the end of the answer;
// GET /stats answers those durations (in arrival order) and forgets them.
const { createServer } = require('node:http');

const handled = [];
const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const started = process.hrtime.bigint();
    if (req.method === 'GET' && req.url === '/stats') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(handled.splice(0)));
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const text = body.messages.map((m) => m.content).join('\n');
    const content = /json/i.test(text)
      ? '{"hypotheses":[{"cause":"bench","confidence":0.5,"evidence":["bench"]}]}'
      : 'OK';
    const payload = JSON.stringify({
      id: 'chatcmpl-bench',
      object: 'chat.completion',
      model: body.model,
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      usage: { prompt_tokens: Math.ceil(text.length / 4), completion_tokens: Math.ceil(content.length / 4) },
    });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(payload, () => handled.push(Number(process.hrtime.bigint() - started) / 1e6));
  });
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));
