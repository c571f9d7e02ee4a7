"""Role policies as code: Cedar rules, role bindings, check / diff / explain."""
