// A real S3-compatible server (the s3rver package) in its own process, for the S3 storage tests.
// Usage: node s3-server-process.cjs <directory> <port|0> <bucket>
// s3rver canonicalises query values for SigV4 with encodeURIComponent, which leaves ! ' ( ) * as they
// are where S3 and the AWS SDK escape them (RFC 3986). Presigned URLs whose response-content-disposition
// holds an RFC 6266 filename*=UTF-8''… would then fail to verify. Escaping them as S3 does:
const encode = encodeURIComponent;
globalThis.encodeURIComponent = (value) =>
  encode(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

const S3rver = require('@20minutes/s3rver');

const [directory, port, bucket] = process.argv.slice(2);
new S3rver({
  directory,
  port: Number(port),
  address: '127.0.0.1',
  silent: true,
  configureBuckets: [{ name: bucket }],
})
  .run()
  .then(({ port: listening }) => process.stdout.write(`listening ${listening}\n`))
  .catch((error) => {
    process.stderr.write(`${error.stack}\n`);
    process.exit(1);
  });
