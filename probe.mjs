import * as ed from '@noble/ed25519';
import { createPublicKey, verify } from 'node:crypto';
const P = 2n**255n - 19n;
const L = 2n**252n + 27742317777372353535851937790883648493n;
const b64 = (b) => Buffer.from(b).toString('base64url');
const le = (n) => { const b = new Uint8Array(32); for (let i=0;i<32;i++){ b[i]=Number(n & 0xffn); n >>= 8n;} return b; };
const leNum = (b) => { let n=0n; for (let i=b.length-1;i>=0;i--) n=(n<<8n)|BigInt(b[i]); return n; };
let T8;
for (let y = 2n; ; y++) { try { const q = ed.Point.fromBytes(le(y), false); const t = q.multiply(L - 1n, false).add(q); if (!t.double().double().is0()) { T8 = t; break; } } catch {} }
const torsion = []; let acc = ed.Point.ZERO; for (let k=0;k<8;k++){ torsion.push(acc); acc = acc.add(T8); }
console.log('T8', b64(T8.toBytes()));
console.log('canonical:'); for (const t of torsion) console.log(' ', b64(t.toBytes()), Buffer.from(t.toBytes()).toString('hex'));
console.log('noncanonical:');
for (const t of torsion) {
  const b = t.toBytes(); const y = leNum(b.slice()) & ((1n<<255n)-1n); const sign = b[31] & 0x80;
  const variants = [];
  if (t.x === 0n) { const v = Uint8Array.from(b); v[31] ^= 0x80; variants.push(v); }
  if (y + P < 2n**255n) { const v = le(y + P); v[31] |= sign; variants.push(v); if (t.x === 0n) { const w = Uint8Array.from(v); w[31] ^= 0x80; variants.push(w); } }
  for (const v of variants) { let nodeOk; try { createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: b64(v) }, format: 'jwk' }); nodeOk = true; } catch { nodeOk = false; } console.log(' ', b64(v), Buffer.from(v).toString('hex'), 'node', nodeOk); }
}
const A1 = Buffer.from('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a','hex');
const pA = ed.Point.fromBytes(A1,false);
const mixed = pA.add(T8).toBytes();
console.log('A1', b64(A1), 'mixed', b64(mixed), Buffer.from(mixed).toString('hex'));
const y3p = le(3n + P); console.log('y=3+p', b64(y3p), Buffer.from(y3p).toString('hex'), 'y=3', b64(le(3n)));
const sig1 = Buffer.from('e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b','hex');
const key1 = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: b64(A1) }, format: 'jwk' });
console.log('sig1', b64(sig1), verify(null, Buffer.alloc(0), key1, sig1));
const s = leNum(sig1.subarray(32)); const sL = Buffer.concat([sig1.subarray(0,32), Buffer.from(le(s+L))]);
console.log('sig1 S+L', b64(sL), verify(null, Buffer.alloc(0), key1, sL));
const t = b64(sig1); const last = t.at(-1); 
const alphabet='ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const bumped = t.slice(0,-1) + alphabet[alphabet.indexOf(last)+1];
console.log('unused bits', bumped, Buffer.from(bumped,'base64url').equals(sig1), verify(null, Buffer.alloc(0), key1, Buffer.from(bumped,'base64url')));
