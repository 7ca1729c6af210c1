// Assay's jest-compatible runner for aider's polyglot JavaScript exercises (assay.judging.polyglot).
//
// Runs `*.spec.js` files under node with jest's globals (describe, test, it, xtest, xit, test.skip,
// beforeEach, afterEach, beforeAll, afterAll, expect) and the matchers the exercises use (toBe, toEqual,
// toBeCloseTo, toBeDefined, toBeUndefined, toBeNull, toBeInstanceOf, toMatch, toThrow, toThrowError,
// with .not, .resolves and .rejects), jest's `equals` for toEqual, and jest's 5 s per-test timeout.
//
// The verdict is the trusted side's, from records this runner writes to fd 3 at the end: every line
// starts with a nonce that the runner reads from stdin before any exercise code is loaded (it is in no
// file, argument or environment variable), and the last line says the run reached its end. The sample's
// code runs later, in this process: the globals are non-writable, the runner keeps its state in its own
// closure, appends with defineProperty (no setter of a prototype sees it), calls the intrinsics it took
// before the sample ran, and subscribes to promises with the original `then`, so a sample that replaces
// `expect`, patches `Promise.prototype.then` or `Array.prototype.push`, prints a pass line or exits
// early does not pass. node:v8 and node:inspector (heap snapshots, a debugger on these closures) are refused, and node
// runs under its permission model. What remains (docs/verdicts.md, polyglot): the sample shares the process and could
// read the nonce out of its memory by hand (/proc/self/mem); what a test compares with the sample's own objects and
// functions, the sample decides.

import * as fs from 'node:fs';
import * as nodeModule from 'node:module';
import * as util from 'node:util';
import * as url from 'node:url';
import * as path from 'node:path';

// Every function of node's modules is taken now, as a value: a sample may patch `require('fs').writeSync` and call
// `syncBuiltinESMExports()`, which would change an imported binding, not these constants.
const writeSync = fs.writeSync;
const inspect = util.inspect;
const isPromise = util.types.isPromise;
const isNativeError = util.types.isNativeError;
const register = nodeModule.register;
const pathToFileURL = url.pathToFileURL;
const resolvePath = path.resolve;
const NONCE = fs.readFileSync(0, 'utf8').trim();
const { defineProperty, freeze, create, is: ObjectIs, keys: ObjectKeys, getOwnPropertySymbols, getOwnPropertyDescriptor, getPrototypeOf, entries: ObjectEntries } = Object;
const call = Function.prototype.call;
const uncurry = (fn) => call.bind(fn);
const hasOwn = uncurry(Object.prototype.hasOwnProperty);
const toStringTag = uncurry(Object.prototype.toString);
const promiseThen = uncurry(Promise.prototype.then);
const OrigPromise = Promise;
const isArray = Array.isArray;
const setHas = uncurry(Set.prototype.has);
const setValues = uncurry(Set.prototype.values);
const mapHas = uncurry(Map.prototype.has);
const mapGet = uncurry(Map.prototype.get);
const mapEntries = uncurry(Map.prototype.entries);
const setSize = uncurry(getOwnPropertyDescriptor(Set.prototype, 'size').get);
const mapSize = uncurry(getOwnPropertyDescriptor(Map.prototype, 'size').get);
const iterNext = (iterator) => iterator.next();  // a sample's own iterable: its own next
const setIterNext = uncurry(getPrototypeOf(new Set().values()).next);
const mapIterNext = uncurry(getPrototypeOf(new Map().entries()).next);
const stringIncludes = uncurry(String.prototype.includes);
const regexpExec = uncurry(RegExp.prototype.exec);
const regexpSource = uncurry(getOwnPropertyDescriptor(RegExp.prototype, 'source').get);
const regexpFlags = uncurry(getOwnPropertyDescriptor(RegExp.prototype, 'flags').get);
const dateValue = uncurry(Date.prototype.getTime);
const enc = encodeURIComponent;
const OrigError = Error;
const mathAbs = Math.abs;
const mathPow = Math.pow;
const numberIsNaN = Number.isNaN;
const origSetTimeout = setTimeout;
const origClearTimeout = clearTimeout;
const origSetImmediate = setImmediate;
const reallyExit = process.reallyExit;
const processOn = uncurry(process.on);
const inspectValue = (value) => { try { return inspect(value, { depth: 6, breakLength: 100 }); } catch { return '<uninspectable>'; } };
const out = (text) => { try { writeSync(1, text); } catch { /* stdout gone: the records still decide */ } };
const TIMEOUT_MS = 5000;  // jest's default per-test timeout

function append(list, value) {
  defineProperty(list, list.length, { value, writable: true, enumerable: true, configurable: true });
}

class AssertionFailure extends OrigError {}
freeze(AssertionFailure.prototype);
freeze(AssertionFailure);

// ------------------------------------------------------------------ jest's equals (toEqual: not strict, with iterableEquality)

function ownKeys(obj) {
  const found = [];
  const names = ObjectKeys(obj);
  for (let i = 0; i < names.length; i++) append(found, names[i]);
  const symbols = getOwnPropertySymbols(obj);
  for (let i = 0; i < symbols.length; i++) {
    const d = getOwnPropertyDescriptor(obj, symbols[i]);
    if (d && d.enumerable) append(found, symbols[i]);
  }
  return found;
}

function hasIterator(obj) {
  return obj !== null && typeof obj === 'object' && typeof obj[Symbol.iterator] === 'function';
}

function iterableEquality(a, b, aStack, bStack) {
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || isArray(a) || isArray(b) || !hasIterator(a) || !hasIterator(b)) return undefined;
  if (a.constructor !== b.constructor) return false;
  for (let i = aStack.length - 1; i >= 0; i--) if (aStack[i] === a) return bStack[i] === b;
  append(aStack, a); append(bStack, b);
  const done = (result) => { aStack.length -= 1; bStack.length -= 1; return result; };
  const isSet = toStringTag(a) === '[object Set]';
  const isMap = toStringTag(a) === '[object Map]';
  if (isSet) {
    if (setSize(a) !== setSize(b)) return done(false);
    for (const it = setValues(a); ;) {
      const step = setIterNext(it);
      if (step.done) break;
      const value = step.value;
      if (setHas(b, value)) continue;
      let found = false;
      for (const jt = setValues(b); ;) {
        const s2 = setIterNext(jt);
        if (s2.done) break;
        if (equals(value, s2.value, aStack, bStack)) { found = true; break; }
      }
      if (!found) return done(false);
    }
    return done(true);
  }
  if (isMap) {
    if (mapSize(a) !== mapSize(b)) return done(false);
    for (const it = mapEntries(a); ;) {
      const step = mapIterNext(it);
      if (step.done) break;
      const key = step.value[0];
      const value = step.value[1];
      if (mapHas(b, key) && equals(value, mapGet(b, key), aStack, bStack)) continue;
      let found = false;
      for (const jt = mapEntries(b); ;) {
        const s2 = mapIterNext(jt);
        if (s2.done) break;
        if (equals(key, s2.value[0], aStack, bStack) && equals(value, s2.value[1], aStack, bStack)) { found = true; break; }
      }
      if (!found) return done(false);
    }
    return done(true);
  }
  const bIterator = b[Symbol.iterator]();
  for (const ai = a[Symbol.iterator](); ;) {
    const sa = iterNext(ai);
    const sb = iterNext(bIterator);
    if (sa.done || sb.done) { if (sa.done !== sb.done) return done(false); break; }
    if (!equals(sa.value, sb.value, aStack, bStack)) return done(false);
  }
  if (!equals(ObjectEntries(a), ObjectEntries(b), aStack, bStack)) return done(false);
  return done(true);
}

function equals(a, b, aStack = [], bStack = []) {
  const custom = iterableEquality(a, b, aStack, bStack);
  if (custom !== undefined) return custom;
  if (isNativeError(a) && isNativeError(b)) return a.message == b.message;  // jest: instanceof Error
  if (ObjectIs(a, b)) return true;
  if (a === null || b === null) return a === b;
  const className = toStringTag(a);
  if (className !== toStringTag(b)) return false;
  switch (className) {
    case '[object Boolean]':
    case '[object String]':
    case '[object Number]':
      if (typeof a !== typeof b) return false;
      if (typeof a !== 'object' && typeof b !== 'object') return ObjectIs(a, b);
      return ObjectIs(a.valueOf(), b.valueOf());
    case '[object Date]':
      return dateValue(a) === dateValue(b) || (numberIsNaN(dateValue(a)) && numberIsNaN(dateValue(b)));
    case '[object RegExp]':
      return regexpSource(a) === regexpSource(b) && regexpFlags(a) === regexpFlags(b);
  }
  if (typeof a !== 'object' || typeof b !== 'object') return false;
  for (let i = aStack.length - 1; i >= 0; i--) {
    if (aStack[i] === a) return bStack[i] === b;
    if (bStack[i] === b) return false;
  }
  append(aStack, a); append(bStack, b);
  const aKeys = ownKeys(a);
  const bKeys = ownKeys(b);
  for (let i = 0; i < bKeys.length; i++) if (b[bKeys[i]] === undefined && !hasOwn(a, bKeys[i])) append(aKeys, bKeys[i]);
  for (let i = 0; i < aKeys.length; i++) if (a[aKeys[i]] === undefined && !hasOwn(b, aKeys[i])) append(bKeys, aKeys[i]);
  let result = aKeys.length === bKeys.length;
  for (let i = aKeys.length - 1; result && i >= 0; i--) {
    const key = aKeys[i];
    result = (hasOwn(b, key) || a[key] === undefined) && equals(a[key], b[key], aStack, bStack);
  }
  aStack.length -= 1; bStack.length -= 1;
  return result;
}

// ------------------------------------------------------------------ matchers

function thrownMatches(thrown, expected) {
  if (expected === undefined) return true;
  const message = thrown !== null && typeof thrown === 'object' && 'message' in thrown ? thrown.message : thrown;
  if (typeof expected === 'string') return typeof message === 'string' && stringIncludes(message, expected);
  if (expected !== null && toStringTag(expected) === '[object RegExp]') return typeof message === 'string' && regexpExec(expected, message) !== null;
  if (typeof expected === 'function') return instanceOf(thrown, expected);
  if (expected !== null && typeof expected === 'object' && 'message' in expected) return message === expected.message;
  return false;
}

// `instanceof` without Symbol.hasInstance (which a sample could define on a built-in): the prototype chain.
function instanceOf(value, cls) {
  if (typeof cls !== 'function' || value === null || (typeof value !== 'object' && typeof value !== 'function')) return false;
  const proto = cls.prototype;
  for (let p = getPrototypeOf(value); p !== null; p = getPrototypeOf(p)) if (p === proto) return true;
  return false;
}

const MATCHERS = freeze({
  toBe: (r, e) => [ObjectIs(r, e), `expect(received).toBe(expected)\n\nExpected: ${inspectValue(e)}\nReceived: ${inspectValue(r)}`],
  toEqual: (r, e) => [equals(r, e), `expect(received).toEqual(expected)\n\nExpected: ${inspectValue(e)}\nReceived: ${inspectValue(r)}`],
  toBeCloseTo: (r, e, digits = 2) => {
    let pass;
    if (typeof r !== 'number' || typeof e !== 'number') pass = false;
    else if (r === Infinity && e === Infinity) pass = true;
    else if (r === -Infinity && e === -Infinity) pass = true;
    else pass = mathAbs(e - r) < mathPow(10, -digits) / 2;
    return [pass, `expect(received).toBeCloseTo(expected, ${digits})\n\nExpected: ${inspectValue(e)}\nReceived: ${inspectValue(r)}`];
  },
  toBeDefined: (r) => [r !== undefined, `expect(received).toBeDefined()\n\nReceived: ${inspectValue(r)}`],
  toBeUndefined: (r) => [r === undefined, `expect(received).toBeUndefined()\n\nReceived: ${inspectValue(r)}`],
  toBeNull: (r) => [r === null, `expect(received).toBeNull()\n\nReceived: ${inspectValue(r)}`],
  toBeInstanceOf: (r, cls) => [instanceOf(r, cls),
    `expect(received).toBeInstanceOf(expected)\n\nExpected constructor: ${cls && cls.name}\nReceived: ${inspectValue(r)}`],
  toMatch: (r, e) => [typeof r === 'string' && (typeof e === 'string' ? stringIncludes(r, e) : regexpExec(e, r) !== null),
    `expect(received).toMatch(expected)\n\nExpected pattern: ${inspectValue(e)}\nReceived string: ${inspectValue(r)}`],
});

function throwMatcher(name, fromPromise) {
  return (r, e) => {
    let threw = false;
    let thrown;
    if (fromPromise) {
      threw = true;
      thrown = r;
    } else {
      if (typeof r !== 'function') return [false, `expect(received).${name}(expected)\n\nReceived value must be a function`];
      try { r(); } catch (err) { threw = true; thrown = err; }
    }
    const pass = threw && thrownMatches(thrown, e);
    const what = threw ? `Thrown: ${inspectValue(thrown)}` : 'Received function did not throw';
    return [pass, `expect(received).${name}(${e === undefined ? '' : 'expected'})\n\n${e === undefined ? '' : `Expected: ${inspectValue(e)}\n`}${what}`];
  };
}

function fail(message) {
  throw new AssertionFailure(message);
}

function matchersFor(received, negated, mode, not = undefined) {
  const target = create(null);
  if (not !== undefined) defineProperty(target, 'not', { value: not });
  const names = ObjectKeys(MATCHERS);
  const all = create(null);
  for (let i = 0; i < names.length; i++) all[names[i]] = MATCHERS[names[i]];
  all.toThrow = throwMatcher('toThrow', mode === 'rejects');
  all.toThrowError = throwMatcher('toThrowError', mode === 'rejects');
  const keysAll = ObjectKeys(all);
  for (let i = 0; i < keysAll.length; i++) {
    const matcher = all[keysAll[i]];
    const check = (value, e, d) => {
      const verdict = matcher(value, e, d);
      if (verdict[0] === negated) fail((negated ? 'not: ' : '') + verdict[1]);
    };
    const run = mode === '' ? (e, d) => { check(received, e, d); } : (e, d) => settle(received, mode, (value) => check(value, e, d));
    defineProperty(target, keysAll[i], { value: run, enumerable: true });
  }
  return freeze(target);
}

// A promise of the runner's own: an own `constructor`, so `await` and the original `then` never look up a patched one.
function ownPromise(executor) {
  const p = new OrigPromise(executor);
  defineProperty(p, 'constructor', { value: OrigPromise });
  return p;
}

function subscribe(value, onValue, onError) {
  if (isPromise(value)) {  // a real promise: its own state decides, through the original then
    try { promiseThen(value, onValue, onError); } catch (err) { onError(err); }
    return;
  }
  if (value !== null && (typeof value === 'object' || typeof value === 'function') && typeof value.then === 'function') {
    try { value.then(onValue, onError); } catch (err) { onError(err); }
    return;
  }
  onValue(value);
}

function settle(received, mode, check) {
  return ownPromise((resolve, reject) => {
    const isThenable = received !== null && (typeof received === 'object' || typeof received === 'function') && typeof received.then === 'function';
    if (!isThenable) { reject(new AssertionFailure(`expect(received).${mode}: received value must be a promise, got ${inspectValue(received)}`)); return; }
    subscribe(received, (value) => {
      if (mode === 'rejects') { reject(new AssertionFailure(`expect(received).rejects: received promise resolved instead of rejected\nResolved to value: ${inspectValue(value)}`)); return; }
      try { check(value); resolve(undefined); } catch (err) { reject(err); }
    }, (reason) => {
      if (mode === 'resolves') { reject(new AssertionFailure(`expect(received).resolves: received promise rejected instead of resolved\nRejected to value: ${inspectValue(reason)}`)); return; }
      try { check(reason); resolve(undefined); } catch (err) { reject(err); }
    });
  });
}

function expect(received) {
  const base = matchersFor(received, false, '');
  const target = create(null);
  const names = ObjectKeys(base);
  for (let i = 0; i < names.length; i++) defineProperty(target, names[i], { value: base[names[i]], enumerable: true });
  defineProperty(target, 'not', { value: matchersFor(received, true, ''), enumerable: true });
  const resolves = matchersFor(received, false, 'resolves', matchersFor(received, true, 'resolves'));
  const rejects = matchersFor(received, false, 'rejects', matchersFor(received, true, 'rejects'));
  defineProperty(target, 'resolves', { value: resolves, enumerable: true });
  defineProperty(target, 'rejects', { value: rejects, enumerable: true });
  return freeze(target);
}
freeze(expect);

// ------------------------------------------------------------------ registration

const BLOCK_LISTS = freeze(['children', 'beforeEach', 'afterEach', 'beforeAll', 'afterAll']);

function makeBlock(title, parent, skipped) {
  const block = create(null);
  defineProperty(block, 'title', { value: title });
  defineProperty(block, 'parent', { value: parent });
  defineProperty(block, 'skipped', { value: skipped });
  const lists = BLOCK_LISTS;
  for (let i = 0; i < lists.length; i++) defineProperty(block, lists[i], { value: [] });
  return block;
}

const root = makeBlock('', null, false);
let current = root;
let started = false;
let broken = '';  // set when the suite was used in a way the runner does not allow: the run fails

function registering(what) {
  if (started) { broken = `${what} called while the tests ran`; throw new AssertionFailure(broken); }
}

function addTest(title, fn, skipped) {
  registering('test');
  const t = create(null);
  defineProperty(t, 'kind', { value: 'test' });
  defineProperty(t, 'title', { value: String(title) });
  defineProperty(t, 'fn', { value: fn });
  defineProperty(t, 'parent', { value: current });
  defineProperty(t, 'skipped', { value: skipped || typeof fn !== 'function' });
  append(current.children, freeze(t));
}

function addDescribe(title, fn, skipped) {
  registering('describe');
  const block = makeBlock(String(title), current, skipped || current.skipped);
  defineProperty(block, 'kind', { value: 'describe' });
  append(current.children, block);
  const outer = current;
  current = block;
  try {
    const returned = fn();
    if (returned !== undefined) broken = `describe("${title}") returned a value (a describe callback must not be async)`;
  } catch (err) {
    broken = `describe("${title}") threw: ${inspectValue(err)}`;
  } finally {
    current = outer;
  }
}

function hook(list) {
  return (fn) => { registering('a hook'); append(current[list], fn); };
}

const test = (title, fn) => addTest(title, fn, false);
defineProperty(test, 'skip', { value: (title, fn) => addTest(title, fn, true) });
defineProperty(test, 'todo', { value: (title) => addTest(title, undefined, true) });
freeze(test);
const xtest = freeze((title, fn) => addTest(title, fn, true));
const describe = (title, fn) => addDescribe(title, fn, false);
defineProperty(describe, 'skip', { value: (title, fn) => addDescribe(title, fn, true) });
freeze(describe);
const xdescribe = freeze((title, fn) => addDescribe(title, fn, true));

const GLOBALS = {
  describe, xdescribe, test, it: test, xtest, xit: xtest, expect,
  beforeEach: freeze(hook('beforeEach')), afterEach: freeze(hook('afterEach')),
  beforeAll: freeze(hook('beforeAll')), afterAll: freeze(hook('afterAll')),
};
for (const name of ObjectKeys(GLOBALS)) defineProperty(globalThis, name, { value: GLOBALS[name], writable: false, configurable: false, enumerable: false });

// ------------------------------------------------------------------ running

let report = '';
let passed = 0;
let failed = 0;
let skipped = 0;
let currentFailure = null;  // set by an uncaught exception while a test runs

function pathOf(node) {
  let title = node.title;
  for (let p = node.parent; p !== null && p !== root; p = p.parent) title = p.title + ' › ' + title;
  return title;
}

function indentOf(node) {
  let depth = 0;
  for (let p = node.parent; p !== null && p !== root; p = p.parent) depth += 1;
  return '  '.repeat(depth + 1);
}

function errorText(err) {
  try {
    if (err instanceof AssertionFailure) return err.message;
    if (err instanceof OrigError) return String(err.stack || `${err.name}: ${err.message}`);
    return `thrown: ${inspectValue(err)}`;
  } catch {
    return 'thrown: <unprintable>';
  }
}

// Call fn (a test or hook), then `next(error or null)`: a returned promise is waited for (jest's 5 s).
function callMaybeAsync(fn, next) {
  let finished = false;
  let timer = null;
  const finish = (err) => {
    if (finished) return;
    finished = true;
    if (timer !== null) origClearTimeout(timer);
    origSetImmediate(() => next(err));
  };
  let returned;
  try {
    if (fn.length > 0) {  // a done callback
      timer = origSetTimeout(() => finish(new OrigError(`Exceeded timeout of ${TIMEOUT_MS} ms for a test.`)), TIMEOUT_MS);
      fn((err) => finish(err === undefined || err === null ? null : err));
      return;
    }
    returned = fn();
  } catch (err) {
    finish(err);
    return;
  }
  if (returned !== null && (typeof returned === 'object' || typeof returned === 'function') && typeof returned.then === 'function') {
    timer = origSetTimeout(() => finish(new OrigError(`Exceeded timeout of ${TIMEOUT_MS} ms for a test.`)), TIMEOUT_MS);
    subscribe(returned, () => finish(null), (err) => finish(err === undefined || err === null ? new OrigError('promise rejected with ' + err) : err));
    return;
  }
  finish(null);
}

function runSeries(fns, index, next) {
  if (index >= fns.length) { next(null); return; }
  callMaybeAsync(fns[index], (err) => (err !== null ? next(err) : runSeries(fns, index + 1, next)));
}

function eachHooks(node, list) {
  const chain = [];
  for (let p = node.parent; p !== null; p = p.parent) append(chain, p);
  const fns = [];
  if (list === 'beforeEach') {
    for (let i = chain.length - 1; i >= 0; i--) for (let j = 0; j < chain[i].beforeEach.length; j++) append(fns, chain[i].beforeEach[j]);
  } else {
    for (let i = 0; i < chain.length; i++) for (let j = 0; j < chain[i].afterEach.length; j++) append(fns, chain[i].afterEach[j]);
  }
  return fns;
}

function record(node, status, err) {
  const path = pathOf(node);
  report += `${NONCE} ${status} ${enc(path)} ${enc(node.title)}\n`;
  if (status === 'pass') { passed += 1; out(`${indentOf(node)}✓ ${node.title}\n`); }
  else if (status === 'skip') { skipped += 1; out(`${indentOf(node)}○ skipped ${node.title}\n`); }
  else { failed += 1; out(`${indentOf(node)}✕ ${node.title}\n\n  ● ${path}\n\n${errorText(err)}\n\n`); }
}

function runTest(node, next) {
  if (node.skipped || skippedAbove(node)) { record(node, 'skip', null); next(); return; }
  currentFailure = null;
  runSeries(eachHooks(node, 'beforeEach'), 0, (hookErr) => {
    const afterTest = (testErr) => {
      runSeries(eachHooks(node, 'afterEach'), 0, (afterErr) => {
        const err = hookErr || testErr || afterErr || currentFailure;
        currentFailure = null;
        record(node, err === null ? 'pass' : 'fail', err);
        next();
      });
    };
    if (hookErr !== null) afterTest(null);
    else callMaybeAsync(node.fn, afterTest);
  });
}

function skippedAbove(node) {
  for (let p = node.parent; p !== null; p = p.parent) if (p.skipped) return true;
  return false;
}

function runBlock(block, next) {
  if (block !== root) out(`${indentOf(block)}${block.title}\n`);
  runSeries(block.skipped ? [] : block.beforeAll, 0, (err) => {
    const children = block.children;
    const step = (i) => {
      if (i >= children.length) { runSeries(block.skipped ? [] : block.afterAll, 0, () => next()); return; }
      const child = children[i];
      if (child.kind === 'describe') runBlock(child, () => step(i + 1));
      else if (err !== null) { record(child, 'fail', err); step(i + 1); }
      else runTest(child, () => step(i + 1));
    };
    step(0);
  });
}

function finishRun() {
  const total = passed + failed + skipped;
  out(`\nTests:       ${failed ? `${failed} failed, ` : ''}${skipped ? `${skipped} skipped, ` : ''}${passed} passed, ${total} total\n`);
  if (broken) out(`\nThe run is not valid: ${broken}\n`);
  else report += `${NONCE} end ${total}\n`;
  try { writeSync(3, report); } catch { /* no channel: the trusted side sees no records */ }
  reallyExit.call(process, failed || broken ? 1 : 0);
}

processOn(process, 'uncaughtException', (err) => { currentFailure = err; if (!started) broken = `uncaught: ${errorText(err)}`; });
processOn(process, 'unhandledRejection', (reason) => { out(`unhandled rejection: ${inspectValue(reason)}\n`); });

register('./jest_hooks.mjs', import.meta.url);
// The same modules for require() and process.getBuiltinModule (the hooks cover import; node runs with its permission
// model too, which refuses the inspector and native addons).
const REFUSED = new Set(['v8', 'node:v8', 'inspector', 'node:inspector', 'inspector/promises', 'node:inspector/promises']);
const refusedHas = uncurry(Set.prototype.has);
const refuse = (name) => { throw new OrigError(`${name} is not available to the code under test`); };
const Module = nodeModule.Module;
const load = Module._load;
defineProperty(Module, '_load', { value: function _load(request, ...rest) { return refusedHas(REFUSED, request) ? refuse(request) : load.call(this, request, ...rest); } });
if (typeof process.getBuiltinModule === 'function') {
  const getBuiltin = process.getBuiltinModule;
  defineProperty(process, 'getBuiltinModule', { value: (name) => (refusedHas(REFUSED, name) ? refuse(name) : getBuiltin(name)) });
}
const specs = process.argv.slice(2);
const loadNext = (i) => {
  if (i >= specs.length) {
    started = true;
    runBlock(root, finishRun);
    return;
  }
  out(`${specs[i]}\n`);
  subscribe(import(pathToFileURL(resolvePath(specs[i])).href), () => loadNext(i + 1), (err) => {
    broken = `${specs[i]} did not load: ${errorText(err)}`;
    out(`\n  ● Test suite failed to run\n\n${errorText(err)}\n`);
    started = true;
    finishRun();
  });
};
loadNext(0);
