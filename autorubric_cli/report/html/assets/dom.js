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

// How a criterion counts, as both pages write it: "this item's own" (an item's own criterion),
// its weight, its tags.
function autorubricCriterionFacts(c, own) {
  var facts = ["weight " + Number(c.weight).toFixed(1)];
  if (own) facts.unshift("this item's own");
  if (c.tags && c.tags.length) facts.push(c.tags.join(", "));
  return facts.join(" · ");
}
