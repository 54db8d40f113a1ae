/**
 * The console's one stylesheet (served as /app/assets/console.css). Colours keep at least 4.5:1
 * against their background (the muted grey 6:1 on white, the blue 7:1); every focusable element shows
 * a 3px ring when reached by keyboard; below 40rem a table turns into one card per row (each cell says
 * what it is through its data-label), so nothing is wider than a 390px phone.
 */
export const CONSOLE_CSS = `:root{--fg:#1b1f24;--muted:#515a64;--bg:#f3f5f8;--card:#fff;--line:#d4dae1;--accent:#0a4f96;--accent-bg:#e8f0fa;
--danger:#a3211a;--danger-bg:#fdeceb;--ok:#176a31;--ok-bg:#e7f5ec;--warn-bg:#fff6e0;--warn-line:#d9a520;--radius:.6rem;
--mono:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg);overflow-wrap:anywhere}
a{color:var(--accent)}a:hover{text-decoration-thickness:2px}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px;border-radius:2px}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.skip{position:absolute;left:.5rem;top:-4rem;background:var(--card);color:var(--accent);padding:.5rem 1rem;border-radius:var(--radius);z-index:10;font-weight:600}
.skip:focus{top:.5rem}
.top{background:#14213d;color:#fff}
.top-inner{max-width:72rem;margin:0 auto;padding:.6rem 1rem;display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center}
.brand{color:#fff;font-weight:700;text-decoration:none;margin-right:auto;letter-spacing:.01em}
.brand:focus-visible,.top a:focus-visible,.top button:focus-visible{outline-color:#fff}
.top nav ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem 1rem;align-items:center}
.top nav a{color:#fff;text-decoration:none;padding:.25rem 0;border-bottom:2px solid transparent}
.top nav a[aria-current=page],.top nav a:hover{border-bottom-color:#fff}
.top form{margin:0}
.top button{background:transparent;color:#fff;border:1px solid rgba(255,255,255,.7);padding:.3rem .8rem;font-size:.9rem}
.top button:hover{background:rgba(255,255,255,.12)}
.tabs{background:var(--card);border-bottom:1px solid var(--line)}
.tabs ul{max-width:72rem;margin:0 auto;padding:0 1rem;list-style:none;display:flex;flex-wrap:wrap;gap:0 1.25rem}
.tabs a{display:inline-block;padding:.7rem 0;color:var(--fg);text-decoration:none;border-bottom:3px solid transparent}
.tabs a[aria-current=page]{border-bottom-color:var(--accent);font-weight:600;color:var(--accent)}
.tabs a:hover{border-bottom-color:var(--line)}
main{max-width:72rem;margin:0 auto;padding:1.25rem 1rem 3rem}
main:focus{outline:none}
.narrow{max-width:30rem}
h1{font-size:1.6rem;line-height:1.25;margin:.25rem 0 1rem}
h2{font-size:1.2rem;margin:0 0 .75rem}
h3{font-size:1rem;margin:1rem 0 .5rem}
p{margin:0 0 .75rem}
.lede{color:var(--muted);margin-top:-.5rem}
.muted{color:var(--muted)}
.card{background:var(--card);border:1px solid var(--line);border-radius:var(--radius);padding:1.25rem;margin:0 0 1.25rem}
.grid{display:grid;gap:1.25rem;margin:0 0 1.25rem}.grid>.card{margin:0}
@media (min-width:56rem){.grid.two{grid-template-columns:1fr 1fr}}
label,.label{display:block;font-weight:600;margin:0 0 .3rem}
.field{margin:0 0 1rem}
.hint{display:block;color:var(--muted);font-size:.9rem;margin:-.1rem 0 .35rem}
input[type=text],input[type=email],input[type=url],input[type=number],select,textarea{width:100%;font:inherit;color:inherit;background:#fff;padding:.6rem .7rem;border:1px solid #7b8590;border-radius:.4rem}
input[aria-invalid=true],select[aria-invalid=true],textarea[aria-invalid=true]{border:2px solid var(--danger)}
textarea{min-height:5rem}
fieldset{border:1px solid var(--line);border-radius:var(--radius);margin:0 0 1rem;padding:.75rem 1rem}
legend{font-weight:600;padding:0 .3rem}
.checks{display:grid;gap:.35rem;grid-template-columns:repeat(auto-fill,minmax(12rem,1fr))}
.check{display:flex;gap:.5rem;align-items:flex-start;font-weight:400;margin:0}
.check input{width:1.15rem;height:1.15rem;margin:.2rem 0 0;flex:none}
.error{color:var(--danger);font-weight:600;margin:.3rem 0 0}
button,.button{display:inline-block;font:inherit;font-weight:600;padding:.6rem 1.1rem;border-radius:.4rem;border:1px solid var(--accent);background:var(--accent);color:#fff;cursor:pointer;text-decoration:none;line-height:1.3}
button:hover,.button:hover{background:#083d74}
button.secondary,.button.secondary{background:#fff;color:var(--accent)}
button.secondary:hover,.button.secondary:hover{background:var(--accent-bg)}
button.danger{background:#fff;color:var(--danger);border-color:var(--danger)}
button.danger:hover{background:var(--danger-bg)}
button.small{padding:.3rem .7rem;font-size:.9rem}
button[disabled]{opacity:.6;cursor:progress}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin:.5rem 0 0}
.inline{display:inline}
.or{display:flex;align-items:center;gap:.75rem;color:var(--muted);margin:1.25rem 0}
.or::before,.or::after{content:"";flex:1;border-top:1px solid var(--line)}
.banner{border:1px solid var(--line);border-left:4px solid var(--accent);background:var(--accent-bg);border-radius:var(--radius);padding:.75rem 1rem;margin:0 0 1.25rem}
.banner.ok{border-left-color:var(--ok);background:var(--ok-bg)}
.banner.bad{border-left-color:var(--danger);background:var(--danger-bg)}
.banner.warn{border-left-color:var(--warn-line);background:var(--warn-bg)}
.banner :last-child{margin-bottom:0}
.secret{display:block;font:1rem/1.4 var(--mono);background:#fff;border:1px dashed #7b8590;border-radius:.4rem;padding:.6rem .75rem;margin:.5rem 0;word-break:break-all;user-select:all}
code{font:.92em var(--mono)}
.tag{display:inline-block;font-size:.8rem;line-height:1.4;padding:.05rem .5rem;border-radius:1rem;border:1px solid var(--line);background:#f6f8fa;margin:0 .2rem .2rem 0;white-space:nowrap}
.tag.ok{background:var(--ok-bg);border-color:#9fd1ad;color:var(--ok)}
.tag.bad{background:var(--danger-bg);border-color:#f0b3ae;color:var(--danger)}
.tag.warn{background:var(--warn-bg);border-color:var(--warn-line);color:#6b4e00}
table{width:100%;border-collapse:collapse;font-size:.95rem}
caption{text-align:left;font-weight:600;padding:0 0 .5rem}
th,td{text-align:left;vertical-align:top;padding:.55rem .5rem;border-bottom:1px solid var(--line)}
th{font-size:.85rem;color:var(--muted);font-weight:600}
tbody tr:last-child td{border-bottom:0}
td.actions-cell{white-space:nowrap;text-align:right}
.nowrap{overflow-wrap:normal;white-space:nowrap}
.list{list-style:none;margin:0;padding:0}
.list li{padding:.7rem 0;border-bottom:1px solid var(--line);display:flex;flex-wrap:wrap;gap:.25rem 1rem;align-items:center;justify-content:space-between}
.list li:last-child{border-bottom:0}
.filters{display:grid;gap:0 1rem;grid-template-columns:repeat(auto-fill,minmax(12rem,1fr));align-items:end}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem;margin:0}
dl.facts dt{color:var(--muted)}dl.facts dd{margin:0}
.as-written{white-space:pre-wrap}
dd>dl.facts{padding-left:.75rem;border-left:2px solid var(--line)}ol.snapshot{margin:0;padding-left:1.25rem}ol.snapshot>li{margin:0 0 .5rem}
details{margin:.75rem 0 0}summary{cursor:pointer;font-weight:600;color:var(--accent)}
pre.json{white-space:pre-wrap;overflow-wrap:anywhere;font:.82rem/1.4 var(--mono);background:#f6f8fa;border:1px solid var(--line);border-radius:.4rem;padding:.5rem .6rem;margin:.5rem 0 0}
footer{max-width:72rem;margin:0 auto;padding:0 1rem 2rem;color:var(--muted);font-size:.85rem}
@media (max-width:39.99rem){
h1{font-size:1.35rem}
.card{padding:1rem}
table.stack thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
table.stack,table.stack tbody,table.stack tr,table.stack td{display:block;width:100%}
table.stack tr{border-bottom:1px solid var(--line);padding:.5rem 0}
table.stack tbody tr:last-child{border-bottom:0}
table.stack caption{display:block}
table.stack td{border:0;padding:.2rem 0 .2rem 8rem;position:relative;min-height:1.7rem}
table.stack td::before{content:attr(data-label);position:absolute;left:0;top:.3rem;width:7.25rem;color:var(--muted);font-size:.85rem;font-weight:600}
table.stack td.actions-cell{text-align:left;white-space:normal;padding-left:0}
dl.facts{grid-template-columns:1fr}dl.facts dd{margin-bottom:.4rem}
}
@media (prefers-reduced-motion:no-preference){button,.button,a{transition:background-color .12s,border-color .12s}}`;
