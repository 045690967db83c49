#[test]
fn probe() {
    let s = tact_secrets::CredentialScanner::default();
    for v in [
        serde_json::json!({"command": "curl -H \"Authorization: token $GITHUB_TOKEN\" https://api.github.com"}),
        serde_json::json!({"command": "curl -H \"Authorization: Bearer $GITHUB_TOKEN\" https://api.github.com"}),
        serde_json::json!({"content": "env:\n  GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}\n"}),
        serde_json::json!({"content": "with:\n  password: ${{ secrets.DOCKER_PASSWORD }}\n"}),
        serde_json::json!({"command": "GITHUB_TOKEN=$(gh auth token) npm publish"}),
        serde_json::json!({"command": "export GH_TOKEN=\"$GITHUB_TOKEN\""}),
        serde_json::json!({"new_string": "token: process.env.GITHUB_TOKEN,"}),
        serde_json::json!({"new_string": "GITHUB_TOKEN=os.environ.get('GITHUB_TOKEN')"}),
        serde_json::json!({"new_string": "auth_token = settings.GITHUB_TOKEN"}),
        serde_json::json!({"new_string": "headers = {'Authorization': f'token {GITHUB_TOKEN}'}"}),
        serde_json::json!({"new_string": "password=os.getenv(\"DB_PASSWORD\")"}),
        serde_json::json!({"new_string": "secret: getSecret()"}),
        serde_json::json!({"prompt": "Use basic authentication for the API; add Basic Auth support"}),
        serde_json::json!({"command": "echo 'Basic YWxhZGRpbjpvcGVuc2VzYW1l'"}),
    ] {
        println!("{} => {:?}", v, s.scan(&v).unwrap().map(|f| (f.kind.as_str().to_string(), f.path)));
    }
}
