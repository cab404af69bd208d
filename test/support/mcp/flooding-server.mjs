// Answers nothing and writes newline-terminated garbage to stdout without end.
const line = `${'x'.repeat(1023)}\n`;
const chunk = line.repeat(64);
process.stdin.resume();
function write() {
  while (process.stdout.write(chunk));
  process.stdout.once('drain', write);
}
write();
