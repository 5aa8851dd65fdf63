"""The report page's inline style sheet and script (the page loads nothing else)."""

CSS = """
:root { --hit: #1a7f37; --miss: #cf222e; --muted: #57606a; --line: #d0d7de; --bg2: #f6f8fa; --accent: #0969da; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; padding: 1.2rem 2rem;
       max-width: 1400px; color: #1f2328; background: #fff; }
h1 { font-size: 1.5rem; margin: 0 0 .3rem; }
h2 { font-size: 1.15rem; margin: 1.6rem 0 .5rem; border-bottom: 1px solid var(--line); padding-bottom: .2rem; }
h3 { font-size: 1rem; margin: 1rem 0 .4rem; }
p.note, .muted { color: var(--muted); }
table { border-collapse: collapse; margin: .3rem 0 1rem; }
th, td { border: 1px solid var(--line); padding: .25rem .5rem; text-align: left; vertical-align: top; }
th { background: var(--bg2); font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; }
pre { white-space: pre-wrap; word-break: break-word; margin: .2rem 0; background: var(--bg2); padding: .3rem; }
.badge { display: inline-block; padding: 0 .35rem; border-radius: .6rem; font-size: 11px; font-weight: 600;
         border: 1px solid currentColor; margin-left: .25rem; }
.flaky { color: #9a6700; } .hit { color: var(--hit); } .miss { color: var(--miss); }
.mark-READ { color: var(--hit); } .mark-READ-OTHER { color: #8250df; } .mark-REFUSED, .mark-FAILED { color: var(--miss); }
.by-subagent { color: #8250df; }
.mark-CONFLICT { color: #bc4c00; } p.conflict { color: #bc4c00; margin: .2rem 0; }
.mark-MOMENT { color: #fff; background: var(--accent); border-color: var(--accent); }
tr.moment td { border-top: 2px solid var(--accent); }
td.target { background: #dafbe1; } td.sibling { background: #fbefff; }
svg.bar { vertical-align: middle; margin-left: .4rem; }
details.run { border: 1px solid var(--line); border-radius: 4px; margin: .25rem 0; padding: .2rem .5rem; }
details.run > summary { cursor: pointer; }
details.run[open] > summary { margin-bottom: .3rem; }
.controls { margin: .4rem 0; display: flex; gap: .5rem; align-items: center; }
.controls input { padding: .2rem .4rem; min-width: 18rem; }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: .1rem 1rem; margin: .5rem 0; }
dl.meta dt { font-weight: 600; } dl.meta dd { margin: 0; }
@media print {
  body { padding: 0; max-width: none; font-size: 11px; }
  .controls { display: none; }
  details.run { break-inside: avoid; }
  table, svg { break-inside: avoid; }
  h2 { break-after: avoid; }
  a { color: inherit; text-decoration: none; }
}
"""

JS = """
(function () {
  var runs = Array.prototype.slice.call(document.querySelectorAll('details.run'));
  function setAll(open) { runs.forEach(function (d) { d.open = open; }); }
  var expand = document.getElementById('expand-all'), collapse = document.getElementById('collapse-all');
  if (expand) expand.addEventListener('click', function () { setAll(true); });
  if (collapse) collapse.addEventListener('click', function () { setAll(false); });
  var filter = document.getElementById('run-filter');
  if (filter) filter.addEventListener('input', function () {
    var q = filter.value.toLowerCase();
    runs.forEach(function (d) { d.hidden = q !== '' && d.dataset.search.indexOf(q) < 0; });
  });
  window.addEventListener('beforeprint', function () { setAll(true); });
  document.body.dataset.ready = String(runs.length);
})();
"""
