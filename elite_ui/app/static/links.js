// Links in the trace and the conversation write into a Gradio textbox: the same steps for every kind.
function clicked(event, selector, box, write) {
  const link = event.target.closest(selector);
  if (!link) return false;
  event.preventDefault();
  const field = document.querySelector(`${box} textarea, ${box} input`);
  if (!field) return false;
  field.value = write(link.dataset.sid, field.value);
  field.dispatchEvent(new Event('input', {bubbles: true}));
  return true;
}
document.addEventListener('click', (event) => {
  if (clicked(event, 'a.cite', '#reader-target', (sid) => sid)) {
    setTimeout(() => document.querySelector('#reader-go').click(), 50);
  }
  clicked(event, 'a.pin', '#pins', (sid, value) => {
    const listed = value.split(/[ ,]+/).filter(Boolean);
    return listed.includes('S' + sid) ? value : listed.concat(['S' + sid]).join(', ');
  });
});
