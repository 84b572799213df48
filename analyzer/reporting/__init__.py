"""The pages the commands write: charts (matplotlib) and the HTML and Markdown files that
hold them.

One module per command's pages (``balance_report`` for ``urbion report``,
``compare_pages``, ``card_change_pages``, ``sensitivity_pages``, ``duel_pages``), over the
parts they share: what a run's facts are (``facts``), how runs differ (``differences``),
expansions' interactions (``interactions``), Markdown and HTML pieces (``markup``), the
charts (``charts``), names as a shared page gives them (``names``), and folders written
whole (``folders``).
"""
