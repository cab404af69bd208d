// Exits at once, before any MCP exchange.
process.stderr.write('exiting-server: giving up at start\n');
process.exit(3);
