"""Human labels (docs/guides/labels.md): the labelling page's data, the item order, the import and
its validation, and the overlay that lets `report`, `validate` and the HTML report use them."""
