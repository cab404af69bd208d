// The web-search benchmark's metasearch endpoint: SearXNG-like JSON (10 results per query) in its
// own process, so its timing is not disturbed by the callers' event loops.
const { createServer } = require('node:http');

const server = createServer((req, res) => {
  const url = new URL(req.url, 'http://127.0.0.1');
  const q = url.searchParams.get('q') ?? '';
  const slug = q.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  const results = Array.from({ length: 10 }, (_, i) => ({
    title: `Result ${i + 1} for ${q}`,
    url: `https://site${i + 1}.example.com/${slug}/${i + 1}`,
    content: `Snippet ${i + 1} about ${q}, long enough to look like a real search snippet from a page.`,
    publishedDate: '2026-06-01T00:00:00',
    engine: 'bench',
  }));
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ query: q, number_of_results: results.length, results }));
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));
