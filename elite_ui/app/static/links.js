// Links in the trace and the conversation write into a Gradio textbox: the same steps for every kind.
function clicked(event, selector, box, write) {
  const link = event.target.closest(selector);
  if (!link) return false;
  event.preventDefault();
  return fill(box, (value) => write(link.dataset.sid, value, link));
}
// Writes into a (hidden) Gradio textbox as if typed: ``write`` turns its value into the new one.
function fill(box, write) {
  const field = document.querySelector(`${box} textarea, ${box} input`);
  if (!field) return false;
  field.value = write(field.value);
  field.dispatchEvent(new Event('input', {bubbles: true}));
  return true;
}
// The model note's link opens the (collapsed) model panel and scrolls to it.
function openModelPanel(event) {
  if (!event.target.closest('a.open-model')) return;
  event.preventDefault();
  const panel = document.querySelector('#model-panel');
  if (!panel) return;
  const toggle = panel.querySelector('button, .label-wrap');
  if (toggle && !panel.querySelector('#model-status')?.offsetParent) toggle.click();
  panel.scrollIntoView({behavior: 'smooth', block: 'start'});
}
document.addEventListener('click', (event) => {
  if (clicked(event, 'a.cite', '#reader-target', (sid, value, link) => `${link.dataset.book}:${sid}`)) {
    setTimeout(() => document.querySelector('#reader-go').click(), 50);
  }
  clicked(event, 'a.pin', '#pins', (sid, value) => {
    const listed = value.split(/[ ,]+/).filter(Boolean);
    return listed.includes('S' + sid) ? value : listed.concat(['S' + sid]).join(', ');
  });
  if (clicked(event, 'a.companion', '#xray-pick', (sid, value, link) => link.dataset.pair)) pressPick();
  if (clicked(event, 'a.ask-highlight', '#highlight-pick', (sid, value, link) => `${link.dataset.book}:${link.dataset.sids}`)) {
    setTimeout(() => { document.querySelector('#highlight-go').click(); focusQuestion(); }, 50);
  }
  openModelPanel(event);
});
// A companion clicked (its name in the X-Ray, or its point on the relationship map) shows the passages they share.
function pressPick() { setTimeout(() => document.querySelector('#xray-go').click(), 50); }
function linkMap() {
  const map = document.querySelector('#xray-plot .js-plotly-plot');
  if (!map || !map.on || map.dataset.linked) return;
  map.dataset.linked = 'yes';
  map.on('plotly_click', (data) => {
    const pair = data.points[0] && data.points[0].customdata;
    if (pair && fill('#xray-pick', () => pair)) pressPick();
  });
}
// "Ask about this passage" sends the sentences of the text selected in the Reader (read before the press clears it).
document.addEventListener('mousedown', (event) => {
  if (!event.target.closest('#ask-about')) return;
  const selection = window.getSelection();
  const picked = selection && !selection.isCollapsed
    ? [...document.querySelectorAll('#reader .s')].filter((el) => selection.containsNode(el, true))
    : [];
  fill('#reader-selection', () => picked.map((el) => el.dataset.sid).join(','));
}, true);
// The conversation follows its newest message while it grows, unless the reader scrolled up to read (a new
// question follows again); each update replaces the conversation's element, so its place is restored.
let following = true, kept = 0;
document.addEventListener('scroll', (event) => {
  const chat = event.target.closest?.('.chat');
  if (!chat) return;
  following = chat.scrollHeight - chat.scrollTop - chat.clientHeight < 40;
  kept = chat.scrollTop;
}, true);
document.addEventListener('click', (event) => { if (event.target.closest('#ask')) following = true; });
document.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && event.target.closest('#question')) following = true;
});
// A cited sentence opened in the Reader is scrolled into view once the tab shows it.
function showCited(tries) {
  const cited = document.querySelector('#reader mark#cited');
  if (!cited) return;
  if (cited.offsetParent === null) {
    if (tries > 0) setTimeout(() => showCited(tries - 1), 100);
    return;
  }
  cited.scrollIntoView({block: 'center'});
}
// Gradio names each radio button of a group apart, so each is a tab stop of its own: one name a group makes the
// group one stop, its choice moved with the arrow keys, as a browser's own radio group.
function groupRadios() {
  for (const group of document.querySelectorAll('.wrap:has(> label > input[type=radio])')) {
    const radios = group.querySelectorAll('input[type=radio]');
    for (const radio of radios) if (radio.name !== radios[0].name) radio.name = radios[0].name;
  }
}
// The keyboard's place: at the sample book before any book is open, else in the question box; after a book
// opens, in the question box; after an example question is chosen, in the question box (Enter asks it).
function focusQuestion() { document.querySelector('#question textarea')?.focus(); }
function focusStart() {
  const empty = document.querySelector('#book-info')?.innerText.includes('No book loaded');
  const sample = document.querySelector('#sample');
  if (empty && sample) sample.focus(); else focusQuestion();
}
document.addEventListener('click', (event) => {
  if (event.target.closest('#examples button, #examples tr')) focusQuestion();
});
new MutationObserver((changes) => {
  groupRadios();
  const chat = document.querySelector('#chat .chat');
  if (chat) chat.scrollTop = following ? chat.scrollHeight : kept;
  if (changes.some((change) => change.target.closest?.('#reader'))) showCited(20);
  linkMap();
}).observe(document.documentElement, {childList: true, subtree: true, characterData: true});
