"""Inline CSS and JS of the pairs page (kept apart from the rendering code; contains no data).

The script reads data only from the JSON island ``#pairs-index`` and writes it with textContent,
never innerHTML, so trace text cannot become markup through the script either.
"""

CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:0 16px 40px;color:#222;background:#fafafa}
h1{font-size:20px} h2{font-size:17px;margin:6px 0} code{background:#eee;padding:0 3px;border-radius:3px}
.rules{color:#444;font-size:13px} nav{position:sticky;top:0;background:#fafafa;padding:4px 0;z-index:2;font-size:13px}
nav a{margin-right:8px}
.pair{border-top:3px solid #999;margin-top:22px;padding-top:6px} .why{color:#555;margin:2px 0 6px}
.card{display:flex;flex-wrap:wrap;gap:6px;margin-bottom:6px}
.cell{background:#fff;border:1px solid #ddd;border-radius:4px;padding:4px 8px;min-width:110px}
.cell .k{font-size:11px;color:#666} .d.up{color:#0a7a2f} .d.down{color:#b3261e} .d.flat{color:#777}
.banner{background:#fff3c4;border:1px solid #e0b400;padding:5px 8px;border-radius:4px;margin:6px 0}
.banner.same{background:#eef;border-color:#99c}
.align table{border-collapse:collapse;font:12px monospace} .align td,.align th{border:1px solid #ddd;padding:1px 5px}
tr.op-equal{color:#666} tr.op-replace{background:#fff0d0} tr.op-delete{background:#fde0e0}
tr.op-insert{background:#e0f5e0}
tr.diverge{outline:2px solid #e0b400}
.cols{display:grid;grid-template-columns:1fr 1fr;gap:10px}
.col{min-width:0;border-radius:4px;padding:4px} .col.before{background:#fff2f2} .col.after{background:#f0fbf2}
.head{font-size:12px;margin-bottom:4px} .btns button{font-size:11px;margin:0 4px 4px 0}
.msg{background:#fff;border:1px solid #ddd;border-left:4px solid #999;margin:3px 0;border-radius:3px}
.msg>summary{cursor:pointer;padding:2px 5px;font-size:12px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.role-user{border-left-color:#2f6fd6} .role-assistant{border-left-color:#2a9d4a} .role-system{border-left-color:#888}
.role-tool{border-left-color:#d99a00}
.msg.diverge{border:2px solid #e0b400;box-shadow:0 0 0 3px #fff3c4}
.idx{color:#888} .role{font-weight:600}
.badge{background:#eee;border-radius:8px;padding:0 6px;margin-left:4px;font-size:11px}
.diverge>summary .badge:last-of-type{background:#e0b400;color:#000} .tok{color:#666;margin-left:6px}
.pv{color:#555;margin-left:8px}
pre{white-space:pre-wrap;word-break:break-word;margin:3px 6px;font:12px/1.35 ui-monospace,monospace}
.think{background:#f4efff;border-left:3px solid #8a63d2;margin:3px 6px}
.think>summary{font-size:11px;color:#6a4bb0;cursor:pointer}
.tool{background:#fff8e6;border:1px solid #f0c36a;border-radius:4px;margin:3px 6px}
.chip{display:inline-block;background:#f0c36a;font:11px monospace;padding:0 6px;border-radius:0 0 4px 0}
.code{background:#1e1e1e;color:#ddd;border-radius:4px;margin:3px 6px} .code pre{color:#ddd}
.lang{font:10px monospace;color:#aaa;padding:0 6px}
.more>summary{font-size:11px;color:#2f6fd6;cursor:pointer;margin-left:6px}
.note{color:#8a5a00;font-size:12px;margin:3px 6px}
"""

JS = """
(function(){
  var index = JSON.parse(document.getElementById('pairs-index').textContent);
  var nav = document.getElementById('nav');
  index.forEach(function(p, i){
    var a = document.createElement('a');
    a.href = '#' + p.anchor;
    a.textContent = (i + 1) + '. ' + p.task_id + (p.divergence === null ? '' : ' @' + p.divergence);
    nav.appendChild(a);
  });
  document.querySelectorAll('.btns button').forEach(function(b){
    b.addEventListener('click', function(){
      var open = b.getAttribute('data-act') === 'expand';
      b.closest('.col').querySelectorAll('details.msg').forEach(function(d){ d.open = open; });
    });
  });
  function reveal(){
    var id = decodeURIComponent(location.hash.slice(1));
    var el = id && document.getElementById(id);
    for (var n = el; n; n = n.parentElement) { if (n.tagName === 'DETAILS') n.open = true; }
    if (el) el.scrollIntoView();
  }
  window.addEventListener('hashchange', reveal);
  reveal();
})();
"""
