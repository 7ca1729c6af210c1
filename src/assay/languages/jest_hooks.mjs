// Module hooks for Assay's jest runner (jest_runner.mjs): jest (through babel) resolves `import ... from './x'`
// without the extension, as CommonJS does; node's ESM loader does not. A relative specifier that is not found is
// tried again with `.js`.
export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (err) {
    if (err && err.code === 'ERR_MODULE_NOT_FOUND' && /^\.\.?\//.test(specifier) && !/\.[cm]?js$/.test(specifier)) {
      return next(`${specifier}.js`, context);
    }
    throw err;
  }
}
