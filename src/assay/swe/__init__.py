"""Repository tasks (SWE-bench and its kind): a model's patch applied to a real project at its base
commit, the project's own tests run in a sandbox, each test's status compared with the ground truth.

- `tasks`: task instances and predictions in SWE-bench's formats;
- `repos`: one object store per repository (a mirror clone of a bundle, a path or a URL), and a
  cheap checkout per task;
- `patches`: SWE-bench's fallback chain for applying a patch, and the files a patch may not change;
- `runtime`: the bubblewrap workspace the tests run in (no network; the checkout and a scratch
  directory writable);
- `parsers`: per-test statuses from exact ids (a pytest plugin; pytest's `-rA` text as logged);
- `grading`: SWE-bench v5's resolution, hardened;
- `harness`: one task, end to end; `metrics` over many.
"""
