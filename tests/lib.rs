mod llama_e2e;
mod providers;
