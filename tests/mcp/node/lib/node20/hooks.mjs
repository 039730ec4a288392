// Module hooks (see register.mjs): every import of 'fs' or 'node:fs', except
// fs.mjs's own, resolves to fs.mjs.
const FS = new URL('./fs.mjs', import.meta.url).href;

export async function resolve(specifier, context, next) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL !== FS)
    return { url: FS, shortCircuit: true };
  return next(specifier, context);
}
