// Reads its stdin and never answers: an MCP server that hangs.
process.stdin.resume();
setInterval(() => {}, 60_000);
