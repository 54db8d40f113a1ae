import dgram from 'node:dgram';

/** What the server does with a name: answer these IPv4 addresses, or never answer at all. */
export type DnsAnswer = { a: string[] } | 'silent';

/**
 * A DNS server on loopback (UDP), enough for c-ares: one question per query, A records only (AAAA
 * questions get an empty answer). Names it does not know get NXDOMAIN.
 */
export async function startDnsServer(names: Record<string, DnsAnswer>) {
  const socket = dgram.createSocket('udp4');
  let queries = 0;
  socket.on('message', (msg, peer) => {
    queries += 1;
    // The question starts at byte 12: length-prefixed labels, a zero, then type and class.
    const labels: string[] = [];
    let i = 12;
    while (msg[i]! > 0) {
      labels.push(msg.subarray(i + 1, i + 1 + msg[i]!).toString('ascii'));
      i += msg[i]! + 1;
    }
    const questionEnd = i + 5;
    const type = msg.readUInt16BE(i + 1);
    const answer = names[labels.join('.').toLowerCase()];
    if (answer === 'silent') return;
    const records = answer && type === 1 ? answer.a : [];
    const header = Buffer.alloc(12);
    msg.copy(header, 0, 0, 2);
    header.writeUInt16BE(answer ? 0x8180 : 0x8183, 2); // a response, recursion available; NXDOMAIN if unknown
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(records.length, 6);
    const rrs = records.map((ip) => {
      const rr = Buffer.alloc(16);
      rr.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
      rr.writeUInt16BE(1, 2); // A
      rr.writeUInt16BE(1, 4); // IN
      rr.writeUInt32BE(60, 6); // TTL
      rr.writeUInt16BE(4, 10);
      ip.split('.').forEach((octet, k) => rr.writeUInt8(Number(octet), 12 + k));
      return rr;
    });
    socket.send(Buffer.concat([header, msg.subarray(12, questionEnd), ...rrs]), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    server: `127.0.0.1:${socket.address().port}`,
    queries: () => queries,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
