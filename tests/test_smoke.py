def test_home_page_answers(client):
    response = client.get("/")
    assert response.status_code == 200
    assert "ta_device" in response.headers.get("Set-Cookie", "")
