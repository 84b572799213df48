"""Balance reports: charts (matplotlib) and the HTML and Markdown files that hold them."""
