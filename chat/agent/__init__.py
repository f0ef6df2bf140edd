"""The assistant as a LangGraph graph: state, nodes, tools, model and prompts."""
