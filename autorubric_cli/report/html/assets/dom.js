// The one way the autorubric pages build DOM nodes (the report and the labelling page inline
// this file before their own script). `attrs.text` goes in through textContent, never as HTML.
function autorubricEl(tag, attrs, children) {
  var node = document.createElement(tag);
  Object.keys(attrs || {}).forEach(function (k) {
    if (k === "text") node.textContent = attrs[k];
    else if (k === "cls") node.className = attrs[k];
    else node.setAttribute(k, attrs[k]);
  });
  (children || []).forEach(function (c) { if (c) node.appendChild(c); });
  return node;
}
