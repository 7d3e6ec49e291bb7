"""``planner serve``: a local web page to set up, check and plan a deployment (issue #17).

The page (static HTML/JS/CSS in ``planner/web/static``, no build step) talks to the JSON API of
:mod:`planner.web.app` (FastAPI; ``/docs`` is its OpenAPI page), which calls the same public
functions as the command line (:mod:`planner`). Needs the ``web`` extra
(``pip install 'deployment-planner[web]'``).
"""
