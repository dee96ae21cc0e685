def test_home_page_answers(client):
    response = client.get("/")
    assert response.status_code == 200
    # A page load mints no device: only a commit does (docs/security.md, Identity).
    assert "ta_device" not in response.headers.get("Set-Cookie", "")
