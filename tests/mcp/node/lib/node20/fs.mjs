// node:fs with the globSync that Node 20 lacks (see register.mjs).
import fs from 'node:fs';

export * from 'node:fs';
export default fs;
export function globSync() {
  throw new Error('fs.globSync needs Node >= 22 (not used by the server scenarios)');
}
