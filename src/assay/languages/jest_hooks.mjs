// Module hooks for Assay's jest runner (jest_runner.mjs): jest (through babel) resolves `import ... from './x'`
// without the extension, as CommonJS does; node's ESM loader does not. A relative specifier that is not found is
// tried again with `.js`. And the modules that open this process's own memory to the code in it (node:v8's heap
// snapshots, node:inspector's debugger) are refused: the runner's nonce is in that memory.
const REFUSED = new Set(['v8', 'node:v8', 'inspector', 'node:inspector', 'inspector/promises', 'node:inspector/promises']);

export async function resolve(specifier, context, next) {
  if (REFUSED.has(specifier)) {
    throw Object.assign(new Error(`${specifier} is not available to the code under test`), { code: 'ERR_ACCESS_DENIED' });
  }
  try {
    return await next(specifier, context);
  } catch (err) {
    if (err && err.code === 'ERR_MODULE_NOT_FOUND' && /^\.\.?\//.test(specifier) && !/\.[cm]?js$/.test(specifier)) {
      return next(`${specifier}.js`, context);
    }
    throw err;
  }
}
