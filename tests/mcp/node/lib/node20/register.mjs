// conformance 0.1.16 imports `globSync` from 'fs' (Node >= 22 has it) when it
// loads, though only its tier-check command calls it. On Node 20 the import
// alone fails, so 'fs' is served from fs.mjs (node:fs plus a globSync that
// says it is missing). Use: node --import ./lib/node20/register.mjs <conformance>
import fs from 'node:fs';
import { register } from 'node:module';

if (!('globSync' in fs)) register('./hooks.mjs', import.meta.url);
